// Fused MoE in libtorch, shaped like vLLM's fused_moe: top-k routing, moe_align_block_size, a
// grouped GEMM executed over BLOCK_SIZE_M row blocks, SiLU-and-mul, the second grouped GEMM and
// the weighted combine.
//
// Parameters: BLOCK_SIZE_M (always, when the surface honours it: it sets the padding of every
// expert's token group and the (blocks, BLOCK_SIZE_M, K) batching of the GEMMs). BLOCK_SIZE_N,
// BLOCK_SIZE_K and GROUP_SIZE_M are read only when the platform surface honours them (cuda.yaml,
// not bi-v100.yaml); they then tile each GEMM into GROUP_SIZE_M blocks x BLOCK_SIZE_N output
// columns x BLOCK_SIZE_K reduction steps (fp32 accumulation), like the Triton program grid.
#include <cmath>
#include <vector>

#include "worker/executors/torch/harness.h"
#include "worker/executors/torch/kernels.h"

namespace fleetsweep::torchbench {

namespace {

constexpr char kSurfaceKernel[] = "fused_moe";

struct MoeShapes {
  int64_t M, K, N, E, topk;
};

// 0 = not tiled along that dimension (one bmm per expert covers it).
struct MoeTiling {
  int64_t block_m = 64, block_n = 0, block_k = 0, group_m = 0;
};

struct MoeInputs {
  at::Tensor x;       // (M, K) dtype: hidden states
  at::Tensor logits;  // (M, E) float32: router logits
  at::Tensor w1;      // (E, 2N, K) dtype: gate and up projections, as vLLM lays them out
  at::Tensor w2;      // (E, K, N) dtype: down projection
};

// Output of moe_align_block_size (vLLM csrc/moe/moe_align_sum_kernels.cu semantics).
struct Aligned {
  at::Tensor sorted_token_ids;  // (num_tokens_post_padded,) flat (token*topk+k) ids; pad = numel
  at::Tensor expert_ids;        // (num_blocks,) expert of each BLOCK_SIZE_M block
  int64_t num_tokens_post_padded = 0;
  std::vector<int64_t> blocks_per_expert;  // host copy, drives the per-expert GEMM batches
};

// Sorts the (token, expert) pairs by expert (stable), pads each expert's group to a multiple of
// block_m with the sentinel id numel, and gives each block its expert.
Aligned MoeAlignBlockSize(const at::Tensor& topk_ids, int64_t num_experts, int64_t block_m) {
  const int64_t numel = topk_ids.numel();
  const auto i64 = topk_ids.options().dtype(at::kLong);
  at::Tensor flat = topk_ids.reshape({-1}).to(at::kLong);
  at::Tensor counts = at::bincount(flat, {}, num_experts);
  at::Tensor blocks = at::div(counts + (block_m - 1), block_m, "floor");
  at::Tensor padded = blocks * block_m;
  at::Tensor pad_start = at::cumsum(padded, 0) - padded;
  at::Tensor raw_start = at::cumsum(counts, 0) - counts;
  at::Tensor order = std::get<1>(at::sort(flat, c10::optional<bool>(true), 0, false));
  at::Tensor sorted_expert = flat.index_select(0, order);
  at::Tensor rank = at::arange(numel, i64) - raw_start.index_select(0, sorted_expert);
  at::Tensor dest = pad_start.index_select(0, sorted_expert) + rank;

  Aligned a;
  at::Tensor host_blocks = blocks.cpu();  // the one host synchronisation of the kernel
  const int64_t* hb = host_blocks.data_ptr<int64_t>();
  a.blocks_per_expert.assign(hb, hb + num_experts);
  int64_t total_blocks = 0;
  for (int64_t b : a.blocks_per_expert) total_blocks += b;
  a.num_tokens_post_padded = total_blocks * block_m;
  a.sorted_token_ids = at::full({a.num_tokens_post_padded}, numel, i64);
  a.sorted_token_ids.index_copy_(0, dest, order);
  a.expert_ids = at::repeat_interleave(at::arange(num_experts, i64), blocks);
  return a;
}

// out (nb, BM, Nout) = a (nb, BM, Kin) @ wt (Kin, Nout), one bmm over the expert's blocks, or
// tiled (group_m blocks x block_n columns x block_k steps, fp32 accumulation) when asked.
void GroupedGemm(const at::Tensor& a, const at::Tensor& wt, const MoeTiling& t, at::Tensor out) {
  const int64_t nb = a.size(0), kin = a.size(2), nout = wt.size(1);
  if (t.block_n == 0 && t.block_k == 0 && t.group_m == 0) {
    at::bmm_out(out, a, wt.unsqueeze(0).expand({nb, kin, nout}));
    return;
  }
  const int64_t gm = t.group_m > 0 ? t.group_m : nb;
  const int64_t bn = t.block_n > 0 ? t.block_n : nout;
  const int64_t bk = t.block_k > 0 ? t.block_k : kin;
  for (int64_t g0 = 0; g0 < nb; g0 += gm) {
    const int64_t gl = std::min(gm, nb - g0);
    at::Tensor ag = a.narrow(0, g0, gl);
    for (int64_t n0 = 0; n0 < nout; n0 += bn) {
      const int64_t nl = std::min(bn, nout - n0);
      at::Tensor acc = at::zeros({gl, a.size(1), nl}, a.options().dtype(at::kFloat));
      for (int64_t k0 = 0; k0 < kin; k0 += bk) {
        const int64_t kl = std::min(bk, kin - k0);
        at::Tensor w = wt.narrow(0, k0, kl).narrow(1, n0, nl).unsqueeze(0).expand({gl, kl, nl});
        acc.add_(at::bmm(ag.narrow(2, k0, kl), w));
      }
      out.narrow(0, g0, gl).narrow(2, n0, nl).copy_(acc);
    }
  }
}

at::Tensor FusedMoe(const MoeInputs& in, const MoeShapes& s, const MoeTiling& t) {
  at::Tensor probs = at::softmax(in.logits, -1);
  auto top = at::topk(probs, s.topk, -1);
  at::Tensor topk_w = std::get<0>(top);
  topk_w = topk_w / topk_w.sum(-1, true);
  Aligned al = MoeAlignBlockSize(std::get<1>(top), s.E, t.block_m);
  const int64_t num_blocks = al.num_tokens_post_padded / t.block_m;

  // Sentinel id numel = M*topk maps to the zero row M of x_pad and the zero weight at numel.
  at::Tensor x_pad = at::cat({in.x, at::zeros({1, s.K}, in.x.options())}, 0);
  at::Tensor w_pad = at::cat({topk_w.reshape({-1}), at::zeros({1}, topk_w.options())}, 0);
  at::Tensor tok = at::div(al.sorted_token_ids, s.topk, "floor");
  at::Tensor a_all = x_pad.index_select(0, tok).view({num_blocks, t.block_m, s.K});
  at::Tensor y = at::empty({num_blocks, t.block_m, s.K}, in.x.options());

  int64_t blk = 0;
  for (int64_t e = 0; e < s.E; ++e) {
    const int64_t nb = al.blocks_per_expert[static_cast<size_t>(e)];
    if (nb == 0) continue;
    at::Tensor a = a_all.narrow(0, blk, nb);
    at::Tensor h = at::empty({nb, t.block_m, 2 * s.N}, in.x.options());
    GroupedGemm(a, in.w1[e].t(), t, h);
    at::Tensor act = at::silu(h.narrow(2, 0, s.N)) * h.narrow(2, s.N, s.N);
    GroupedGemm(act, in.w2[e].t(), t, y.narrow(0, blk, nb));
    blk += nb;
  }
  at::Tensor w_sorted = w_pad.index_select(0, al.sorted_token_ids).to(in.x.scalar_type());
  at::Tensor weighted = y.view({al.num_tokens_post_padded, s.K}) * w_sorted.unsqueeze(1);
  at::Tensor out = at::zeros({s.M + 1, s.K}, in.x.options());
  out.index_add_(0, tok, weighted);
  return out.narrow(0, 0, s.M);
}

// Straightforward MoE in reference precision: per expert, the routed tokens through both
// projections, weighted by their routing weight.
at::Tensor ReferenceMoe(const MoeInputs& in, const MoeShapes& s, at::ScalarType r) {
  at::Tensor probs = at::softmax(in.logits.to(r), -1);
  auto top = at::topk(probs, s.topk, -1);
  at::Tensor topk_w = std::get<0>(top) / std::get<0>(top).sum(-1, true);
  at::Tensor ids = std::get<1>(top);
  at::Tensor x = in.x.to(r);
  at::Tensor out = at::zeros({s.M, s.K}, x.options());
  for (int64_t e = 0; e < s.E; ++e) {
    at::Tensor weight = (topk_w * ids.eq(e).to(r)).sum(-1);  // (M)
    at::Tensor rows = at::nonzero(weight > 0).reshape({-1});
    if (rows.numel() == 0) continue;
    at::Tensor h = at::matmul(x.index_select(0, rows), in.w1[e].to(r).t());
    at::Tensor act = at::silu(h.narrow(1, 0, s.N)) * h.narrow(1, s.N, s.N);
    at::Tensor y = at::matmul(act, in.w2[e].to(r).t());
    out.index_add_(0, rows, y * weight.index_select(0, rows).unsqueeze(1));
  }
  return out;
}

struct MoeFamily {
  using Inputs = MoeInputs;
  static constexpr const char* kName = "fused_moe";
  static constexpr const char* kSurface = kSurfaceKernel;
  MoeShapes s{};

  // Defaults: Mixtral-8x7B on cuda; a small model on cpu.
  Status ReadShapes(ShapeReader& shapes, const Env& env) {
    FS_ASSIGN_OR_RETURN(s.M, shapes.Get("M", env.cuda ? 1024 : 64));
    FS_ASSIGN_OR_RETURN(s.K, shapes.Get("K", env.cuda ? 4096 : 128));
    FS_ASSIGN_OR_RETURN(s.N, shapes.Get("N", env.cuda ? 14336 : 256));
    FS_ASSIGN_OR_RETURN(s.E, shapes.Get("E", 8));
    FS_ASSIGN_OR_RETURN(s.topk, shapes.Get("topk", 2));
    return Status::Ok();
  }

  Status CheckShapes() const {
    if (s.topk > s.E) return Status::InvalidArgument("topk > E");
    return Status::Ok();
  }

  ExecError Plan(ParamReader& params, const Env& env, KernelPlan<MoeInputs>* plan) const {
    MoeTiling t;
    Status st = [&]() -> Status {
      FS_ASSIGN_OR_RETURN(t.block_m, params.Int("BLOCK_SIZE_M", 64));
      FS_ASSIGN_OR_RETURN(t.block_n, params.Int("BLOCK_SIZE_N", 0));
      FS_ASSIGN_OR_RETURN(t.block_k, params.Int("BLOCK_SIZE_K", 0));
      FS_ASSIGN_OR_RETURN(t.group_m, params.Int("GROUP_SIZE_M", 0));
      FS_RETURN_IF_ERROR(CheckShapes());
      if (t.block_m < 1) return Status::InvalidArgument("BLOCK_SIZE_M must be >= 1");
      if (t.block_n < 0 || t.block_k < 0 || t.group_m < 0) {
        return Status::InvalidArgument("BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M must be >= 0");
      }
      return Status::Ok();
    }();
    if (!st.ok()) return ExecError::Invalid(st.message());
    const MoeShapes sh = s;
    const at::ScalarType ref_type = ReferenceType(env.dtype);
    plan->kernel = kName;
    plan->input_key = "";  // inputs and reference depend on the shapes and the seed only
    plan->make = [env, sh](uint64_t) {
      MoeInputs in;
      in.x = at::randn({sh.M, sh.K}, env.F32()).to(env.dtype);
      in.logits = at::randn({sh.M, sh.E}, env.F32());
      in.w1 =
          (at::randn({sh.E, 2 * sh.N, sh.K}, env.F32()) / std::sqrt(double(sh.K))).to(env.dtype);
      in.w2 = (at::randn({sh.E, sh.K, sh.N}, env.F32()) / std::sqrt(double(sh.N))).to(env.dtype);
      return in;
    };
    plan->run = [sh, t](const MoeInputs& in) { return FusedMoe(in, sh, t); };
    plan->reference = [sh, ref_type](const MoeInputs& in) {
      return ReferenceMoe(in, sh, ref_type);
    };
    plan->bytes = [](const MoeInputs& in) {
      return static_cast<int64_t>(in.x.nbytes() + in.logits.nbytes() + in.w1.nbytes() +
                                  in.w2.nbytes());
    };
    env.out->Info("flops_per_rep", std::to_string(6.0 * sh.M * sh.topk * sh.K * sh.N));
    return ExecError{};
  }
};

}  // namespace

int RunFusedMoe(const BenchOptions& options, Emitter& out) {
  return RunFamily<MoeFamily>(options, out);
}

std::unique_ptr<ExecutionServer> ServeFusedMoe(const BenchOptions& options, Emitter& out) {
  return FamilyServer<MoeFamily>::Make(options, out);
}

}  // namespace fleetsweep::torchbench
