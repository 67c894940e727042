// Paged-attention decode in libtorch, shaped like vLLM's paged_attention_v1/v2: one query token
// per sequence attends to its context, whose K/V live in pages of `block_size` tokens reached
// through a block table.
//
// Parameters: block_size (page size: the gather granularity and the context padding), use_v1
// (V1: one softmax pass over each sequence's whole context; V2: the context is split into
// partitions of partition_size tokens, each gives its max, exp-sum and partial output, and a
// second step reduces across partitions), partition_size (V2 only; a multiple of block_size).
// On a surface without v2 (bi-v100), use_v1=false fails with not_implemented (exit 3), as
// ixformer's paged_attention_v2 raises NotImplementedError.
//
// Cache layout (simplified from vLLM's x-packed key layout): key/value cache
// (num_blocks, block_size, num_kv_heads, head_size); block_table (num_seqs, max_blocks) int64.
#include <cmath>
#include <limits>
#include <vector>

#include "worker/executors/torch/harness.h"
#include "worker/executors/torch/kernels.h"

namespace fleetsweep::torchbench {

namespace {

constexpr char kSurfaceKernel[] = "paged_attention";

struct PaShapes {
  int64_t S, H, Hkv, D, C;  // sequences, query heads, kv heads, head size, max context
};

struct PaParams {
  int64_t block_size = 16;
  bool use_v1 = true;
  int64_t partition_size = 512;
};

struct PaInputs {
  at::Tensor q;            // (S, H, D)
  at::Tensor k_cache;      // (num_blocks, block_size, Hkv, D)
  at::Tensor v_cache;      // (num_blocks, block_size, Hkv, D)
  at::Tensor block_table;  // (S, max_blocks) int64, a random permutation of the physical blocks
  at::Tensor ctx_lens;     // (S) int64, on the device
  std::vector<int64_t> ctx_host;
};

// Gathers the pages of `table` (S, nblk): (S, nblk * block_size, Hkv, D).
at::Tensor Gather(const at::Tensor& cache, const at::Tensor& table) {
  const int64_t S = table.size(0), nblk = table.size(1);
  return cache.index_select(0, table.reshape({-1}))
      .view({S, nblk * cache.size(1), cache.size(2), cache.size(3)});
}

at::Tensor PagedAttentionV1(const PaInputs& in, const PaShapes& s, const PaParams& p) {
  const int64_t G = s.H / s.Hkv;
  at::Tensor k = Gather(in.k_cache, in.block_table);  // (S, L, Hkv, D)
  at::Tensor v = Gather(in.v_cache, in.block_table);
  const int64_t L = k.size(1);
  at::Tensor qg = in.q.view({s.S, s.Hkv, G, s.D});
  at::Tensor scores =
      at::matmul(qg, k.permute({0, 2, 3, 1})).to(at::kFloat) / std::sqrt(double(s.D));
  at::Tensor mask = at::arange(L, in.ctx_lens.options()).unsqueeze(0) >= in.ctx_lens.unsqueeze(1);
  scores.masked_fill_(mask.view({s.S, 1, 1, L}), -std::numeric_limits<float>::infinity());
  at::Tensor prob = at::softmax(scores, -1).to(in.q.scalar_type());
  return at::matmul(prob, v.permute({0, 2, 1, 3})).reshape({s.S, s.H, s.D});
}

at::Tensor PagedAttentionV2(const PaInputs& in, const PaShapes& s, const PaParams& p) {
  const int64_t G = s.H / s.Hkv;
  const int64_t ps = p.partition_size;
  const int64_t P = (s.C + ps - 1) / ps;  // max_num_partitions
  const int64_t need_blocks = P * ps / p.block_size;
  at::Tensor table = in.block_table;
  if (need_blocks > table.size(1)) {  // pad with block 0: masked, never read into the result
    table = at::cat({table, at::zeros({s.S, need_blocks - table.size(1)}, table.options())}, 1);
  } else {
    table = table.narrow(1, 0, need_blocks);
  }
  at::Tensor k = Gather(in.k_cache, table).view({s.S, P, ps, s.Hkv, s.D});
  at::Tensor v = Gather(in.v_cache, table).view({s.S, P, ps, s.Hkv, s.D});
  at::Tensor qg = in.q.view({s.S, 1, s.Hkv, G, s.D});
  // Per partition: logits (S, P, Hkv, G, ps), max, exp-sum and normalised partial output.
  at::Tensor logits =
      at::matmul(qg, k.permute({0, 1, 3, 4, 2})).to(at::kFloat) / std::sqrt(double(s.D));
  at::Tensor pos = at::arange(P * ps, in.ctx_lens.options()).view({1, P, 1, 1, ps});
  at::Tensor mask = pos >= in.ctx_lens.view({s.S, 1, 1, 1, 1});
  logits.masked_fill_(mask, -std::numeric_limits<float>::infinity());
  at::Tensor max_logits = std::get<0>(logits.max(-1));  // (S, P, Hkv, G)
  at::Tensor safe_max = at::where(at::isinf(max_logits), at::zeros_like(max_logits), max_logits);
  at::Tensor e = at::exp(logits - safe_max.unsqueeze(-1));
  at::Tensor exp_sums = e.sum(-1);
  at::Tensor tmp_out =
      at::matmul(e.to(in.q.scalar_type()), v.permute({0, 1, 3, 2, 4})).to(at::kFloat) /
      exp_sums.clamp_min(1e-30).unsqueeze(-1);  // (S, P, Hkv, G, D)
  // Reduce across partitions (vLLM's paged_attention_v2_reduce_kernel).
  at::Tensor global_max = std::get<0>(max_logits.max(1, /*keepdim=*/true));
  at::Tensor rescaled = exp_sums * at::exp(max_logits - global_max);  // 0 for empty partitions
  at::Tensor out = (tmp_out * rescaled.unsqueeze(-1)).sum(1) / rescaled.sum(1).unsqueeze(-1);
  return out.to(in.q.scalar_type()).reshape({s.S, s.H, s.D});
}

// Per sequence, token by token through the block table, softmax in reference precision.
at::Tensor ReferenceAttention(const PaInputs& in, const PaShapes& s, int64_t block_size,
                              at::ScalarType r) {
  const int64_t G = s.H / s.Hkv;
  const int64_t nslots = in.k_cache.size(0) * block_size;
  at::Tensor kflat = in.k_cache.reshape({nslots, s.Hkv, s.D}).to(r);
  at::Tensor vflat = in.v_cache.reshape({nslots, s.Hkv, s.D}).to(r);
  at::Tensor head_map = at::div(at::arange(s.H, in.ctx_lens.options()), G, "floor");
  std::vector<at::Tensor> outs;
  for (int64_t i = 0; i < s.S; ++i) {
    at::Tensor pos = at::arange(in.ctx_host[static_cast<size_t>(i)], in.ctx_lens.options());
    at::Tensor slot =
        in.block_table[i].index_select(0, at::div(pos, block_size, "floor")) * block_size +
        pos.remainder(block_size);
    at::Tensor k = kflat.index_select(0, slot).index_select(1, head_map);  // (ctx, H, D)
    at::Tensor v = vflat.index_select(0, slot).index_select(1, head_map);
    at::Tensor q = in.q[i].to(r).unsqueeze(1);  // (H, 1, D)
    at::Tensor sc = at::matmul(q, k.permute({1, 2, 0})) / std::sqrt(double(s.D));
    outs.push_back(at::matmul(at::softmax(sc, -1), v.permute({1, 0, 2})).squeeze(1));
  }
  return at::stack(outs, 0);
}

struct PagedAttentionFamily {
  using Inputs = PaInputs;
  static constexpr const char* kName = "paged_attention";
  static constexpr const char* kSurface = kSurfaceKernel;
  PaShapes s{};

  // Defaults: Llama-3-8B-like decode batch on cuda; a toy one on cpu.
  Status ReadShapes(ShapeReader& shapes, const Env& env) {
    FS_ASSIGN_OR_RETURN(s.S, shapes.Get("num_seqs", env.cuda ? 64 : 4));
    FS_ASSIGN_OR_RETURN(s.H, shapes.Get("num_heads", env.cuda ? 32 : 8));
    FS_ASSIGN_OR_RETURN(s.Hkv, shapes.Get("num_kv_heads", env.cuda ? 8 : 2));
    FS_ASSIGN_OR_RETURN(s.D, shapes.Get("head_size", env.cuda ? 128 : 32));
    FS_ASSIGN_OR_RETURN(s.C, shapes.Get("context_len", env.cuda ? 4096 : 200));
    return Status::Ok();
  }

  Status CheckShapes() const {
    if (s.H % s.Hkv != 0)
      return Status::InvalidArgument("num_heads must be a multiple of num_kv_heads");
    return Status::Ok();
  }

  ExecError Plan(ParamReader& params, const Env& env, KernelPlan<PaInputs>* plan) const {
    PaParams p;
    Status st = [&]() -> Status {
      FS_ASSIGN_OR_RETURN(p.use_v1, params.Bool("use_v1", true));
      FS_ASSIGN_OR_RETURN(p.block_size, params.Int("block_size", 16));
      if (!p.use_v1) {  // partition_size is consumed by V2 only
        FS_ASSIGN_OR_RETURN(p.partition_size, params.Int("partition_size", 512));
      }
      FS_RETURN_IF_ERROR(CheckShapes());
      if (p.block_size < 1) return Status::InvalidArgument("block_size must be >= 1");
      if (!p.use_v1 && (p.partition_size < 1 || p.partition_size % p.block_size != 0)) {
        return Status::InvalidArgument("partition_size (" + std::to_string(p.partition_size) +
                                       ") must be a positive multiple of block_size (" +
                                       std::to_string(p.block_size) + ")");
      }
      return Status::Ok();
    }();
    if (!st.ok()) return ExecError::Invalid(st.message());
    const PlatformSurface& surface = env.options->surface;
    if (!p.use_v1 && !surface.Supports(kSurfaceKernel, "v2")) {
      return ExecError::NotImplemented(surface.NotImplementedDetail(kSurfaceKernel, "v2"));
    }
    env.out->Info("path", p.use_v1 ? "paged_attention_v1" : "paged_attention_v2");
    const PaShapes sh = s;
    const int64_t max_blocks = (sh.C + p.block_size - 1) / p.block_size;
    const at::ScalarType ref_type = ReferenceType(env.dtype);
    plan->kernel = kName;
    // The cache layout and the block table depend on block_size.
    plan->input_key = "block_size=" + std::to_string(p.block_size);
    plan->make = [env, sh, p, max_blocks](uint64_t) {
      PaInputs in;
      const int64_t nblocks = sh.S * max_blocks;
      in.q = at::randn({sh.S, sh.H, sh.D}, env.F32()).to(env.dtype);
      in.k_cache = at::randn({nblocks, p.block_size, sh.Hkv, sh.D}, env.F32()).to(env.dtype);
      in.v_cache = at::randn({nblocks, p.block_size, sh.Hkv, sh.D}, env.F32()).to(env.dtype);
      in.block_table = at::randperm(nblocks, env.I64()).view({sh.S, max_blocks});
      // Context lengths in [C/2, C], the first sequence at C; drawn on the host for the reference.
      at::Tensor lens =
          at::randint(sh.C / 2 + 1, sh.C + 1, {sh.S}, at::TensorOptions().dtype(at::kLong));
      lens[0] = sh.C;
      in.ctx_host.assign(lens.data_ptr<int64_t>(), lens.data_ptr<int64_t>() + sh.S);
      in.ctx_lens = lens.to(env.device);
      return in;
    };
    plan->run = [sh, p](const PaInputs& in) {
      return p.use_v1 ? PagedAttentionV1(in, sh, p) : PagedAttentionV2(in, sh, p);
    };
    plan->reference = [sh, p, ref_type](const PaInputs& in) {
      return ReferenceAttention(in, sh, p.block_size, ref_type);
    };
    plan->bytes = [](const PaInputs& in) {
      return static_cast<int64_t>(in.q.nbytes() + in.k_cache.nbytes() + in.v_cache.nbytes() +
                                  in.block_table.nbytes());
    };
    return ExecError{};
  }
};

}  // namespace

int RunPagedAttention(const BenchOptions& options, Emitter& out) {
  return RunFamily<PagedAttentionFamily>(options, out);
}

std::unique_ptr<ExecutionServer> ServePagedAttention(const BenchOptions& options, Emitter& out) {
  return FamilyServer<PagedAttentionFamily>::Make(options, out);
}

}  // namespace fleetsweep::torchbench
