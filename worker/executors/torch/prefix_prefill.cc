// Prefix-prefill attention in libtorch, shaped like vLLM's context_attention_fwd (Triton,
// prefix_prefill.py): each sequence's chunk of new query tokens attends to its cached prefix
// (paged KV, through a block table) and, causally, to the new tokens themselves.
//
// Parameters: BLOCK_M (query rows per tile) and BLOCK_N (key columns per tile). The queries are
// cut into BLOCK_M-row tiles that run side by side (the Triton grid's query-tile axis); the keys
// are walked in BLOCK_N-column tiles, first the prefix (gathered page by page), then the new
// tokens, with an online softmax (running max, running sum, rescaled accumulator) in float32.
// A new-token key tile is applied only to the query tiles that can see it (causal skip), so
// BLOCK_M and BLOCK_N change the tile shapes, the number of steps, the padding and the skipped
// work.
#include <cmath>
#include <limits>
#include <vector>

#include "worker/executors/torch/harness.h"
#include "worker/executors/torch/kernels.h"

namespace fleetsweep::torchbench {

namespace {

constexpr char kSurfaceKernel[] = "prefix_prefill";

struct PpShapes {
  int64_t B, H, Hkv, D, P, Q, cb;  // batch, heads, kv heads, head size, prefix, new, cache block
};

struct PpParams {
  int64_t block_m = 64, block_n = 64;
};

struct PpInputs {
  at::Tensor q;        // (B, Q, H, D) new tokens' queries
  at::Tensor k, v;     // (B, Q, Hkv, D) new tokens' keys/values
  at::Tensor k_cache;  // (num_blocks, cb, Hkv, D) the cached prefix
  at::Tensor v_cache;
  at::Tensor block_table;  // (B, ceil(P / cb)) int64
};

at::Tensor GatherPrefix(const at::Tensor& cache, const at::Tensor& table, int64_t cb, int64_t from,
                        int64_t len) {
  const int64_t B = table.size(0);
  at::Tensor pos = at::arange(from, from + len, table.options());
  at::Tensor slot = table.index_select(1, at::div(pos, cb, "floor")) * cb + pos.remainder(cb);
  return cache.reshape({-1, cache.size(2), cache.size(3)})
      .index_select(0, slot.reshape({-1}))
      .view({B, len, cache.size(2), cache.size(3)});
}

at::Tensor ContextAttention(const PpInputs& in, const PpShapes& s, const PpParams& p) {
  const int64_t G = s.H / s.Hkv, BM = p.block_m, BN = p.block_n;
  const int64_t nqt = (s.Q + BM - 1) / BM, qp = nqt * BM;
  const auto f32 = in.q.options().dtype(at::kFloat);
  const auto i64 = in.block_table.options();
  const float neg_inf = -std::numeric_limits<float>::infinity();
  at::Tensor q = in.q * (1.0 / std::sqrt(double(s.D)));
  if (qp > s.Q) q = at::cat({q, at::zeros({s.B, qp - s.Q, s.H, s.D}, q.options())}, 1);
  // (B, Hkv, q tiles, G*BM rows, D): one "program" per (sequence, kv head, query tile).
  at::Tensor qt = q.view({s.B, nqt, BM, s.Hkv, G, s.D})
                      .permute({0, 3, 1, 4, 2, 5})
                      .reshape({s.B, s.Hkv, nqt, G * BM, s.D});
  at::Tensor m = at::full({s.B, s.Hkv, nqt, G * BM}, neg_inf, f32);
  at::Tensor l = at::zeros({s.B, s.Hkv, nqt, G * BM}, f32);
  at::Tensor acc = at::zeros({s.B, s.Hkv, nqt, G * BM, s.D}, f32);

  // One BLOCK_N key tile applied to query tiles [i0, nqt); mask (nq, G*BM, bn) or undefined.
  auto step = [&](int64_t i0, const at::Tensor& kt, const at::Tensor& vt, const at::Tensor& mask) {
    const int64_t nq = nqt - i0;
    at::Tensor sc =
        at::matmul(qt.narrow(2, i0, nq), kt.permute({0, 2, 3, 1}).unsqueeze(2)).to(at::kFloat);
    if (mask.defined()) sc.masked_fill_(mask, neg_inf);
    at::Tensor mi = m.narrow(2, i0, nq), li = l.narrow(2, i0, nq), ai = acc.narrow(2, i0, nq);
    at::Tensor m_new = at::maximum(mi, std::get<0>(sc.max(-1)));
    at::Tensor pe = at::exp(sc - m_new.unsqueeze(-1));
    at::Tensor alpha = at::exp(mi - m_new);
    li.mul_(alpha).add_(pe.sum(-1));
    ai.mul_(alpha.unsqueeze(-1))
        .add_(at::matmul(pe.to(in.q.scalar_type()), vt.permute({0, 2, 1, 3}).unsqueeze(2))
                  .to(at::kFloat));
    mi.copy_(m_new);
  };

  for (int64_t j0 = 0; j0 < s.P; j0 += BN) {  // the cached prefix: every query sees all of it
    const int64_t bn = std::min(BN, s.P - j0);
    step(0, GatherPrefix(in.k_cache, in.block_table, s.cb, j0, bn),
         GatherPrefix(in.v_cache, in.block_table, s.cb, j0, bn), at::Tensor());
  }
  for (int64_t j0 = 0; j0 < s.Q; j0 += BN) {  // the new tokens, causally
    const int64_t bn = std::min(BN, s.Q - j0);
    const int64_t i0 = j0 / BM;  // earlier query tiles end before this key tile starts
    const int64_t nq = nqt - i0;
    at::Tensor rows = at::arange(i0 * BM, qp, i64).view({nq, 1, BM, 1});
    at::Tensor cols = at::arange(j0, j0 + bn, i64).view({1, 1, 1, bn});
    at::Tensor mask = (cols > rows).expand({nq, G, BM, bn}).reshape({nq, G * BM, bn});
    step(i0, in.k.narrow(1, j0, bn), in.v.narrow(1, j0, bn), mask);
  }
  at::Tensor o = acc / l.unsqueeze(-1);
  return o.view({s.B, s.Hkv, nqt, G, BM, s.D})
      .permute({0, 2, 4, 1, 3, 5})
      .reshape({s.B, qp, s.H, s.D})
      .narrow(1, 0, s.Q)
      .to(in.q.scalar_type());
}

at::Tensor ReferencePrefill(const PpInputs& in, const PpShapes& s, at::ScalarType r) {
  const int64_t G = s.H / s.Hkv;
  const auto i64 = in.block_table.options();
  at::Tensor head_map = at::div(at::arange(s.H, i64), G, "floor");
  at::Tensor kp = GatherPrefix(in.k_cache, in.block_table, s.cb, 0, s.P);
  at::Tensor vp = GatherPrefix(in.v_cache, in.block_table, s.cb, 0, s.P);
  at::Tensor c = at::arange(s.P + s.Q, i64).view({1, -1});
  at::Tensor rr = at::arange(s.Q, i64).view({-1, 1});
  at::Tensor mask = (c >= s.P).logical_and(c - s.P > rr);  // (Q, P+Q)
  std::vector<at::Tensor> outs;
  for (int64_t b = 0; b < s.B; ++b) {
    at::Tensor keys = at::cat({kp[b], in.k[b]}, 0).to(r).index_select(1, head_map);  // (P+Q, H, D)
    at::Tensor vals = at::cat({vp[b], in.v[b]}, 0).to(r).index_select(1, head_map);
    at::Tensor q = in.q[b].to(r).permute({1, 0, 2});  // (H, Q, D)
    at::Tensor sc = at::matmul(q, keys.permute({1, 2, 0})) / std::sqrt(double(s.D));
    sc.masked_fill_(mask.unsqueeze(0), -std::numeric_limits<double>::infinity());
    outs.push_back(at::matmul(at::softmax(sc, -1), vals.permute({1, 0, 2})).permute({1, 0, 2}));
  }
  return at::stack(outs, 0);
}

struct PrefixPrefillFamily {
  using Inputs = PpInputs;
  static constexpr const char* kName = "prefix_prefill";
  static constexpr const char* kSurface = kSurfaceKernel;
  PpShapes s{};

  Status ReadShapes(ShapeReader& shapes, const Env& env) {
    FS_ASSIGN_OR_RETURN(s.B, shapes.Get("batch", env.cuda ? 4 : 2));
    FS_ASSIGN_OR_RETURN(s.H, shapes.Get("num_heads", env.cuda ? 32 : 4));
    FS_ASSIGN_OR_RETURN(s.Hkv, shapes.Get("num_kv_heads", env.cuda ? 8 : 2));
    FS_ASSIGN_OR_RETURN(s.D, shapes.Get("head_size", env.cuda ? 128 : 32));
    FS_ASSIGN_OR_RETURN(s.P, shapes.Get("prefix_len", env.cuda ? 2048 : 48));
    FS_ASSIGN_OR_RETURN(s.Q, shapes.Get("query_len", env.cuda ? 512 : 40));
    FS_ASSIGN_OR_RETURN(s.cb, shapes.Get("cache_block", 16));
    return Status::Ok();
  }

  Status CheckShapes() const {
    if (s.H % s.Hkv != 0)
      return Status::InvalidArgument("num_heads must be a multiple of num_kv_heads");
    return Status::Ok();
  }

  ExecError Plan(ParamReader& params, const Env& env, KernelPlan<PpInputs>* plan) const {
    PpParams p;
    Status st = [&]() -> Status {
      FS_ASSIGN_OR_RETURN(p.block_m, params.Int("BLOCK_M", 64));
      FS_ASSIGN_OR_RETURN(p.block_n, params.Int("BLOCK_N", 64));
      FS_RETURN_IF_ERROR(CheckShapes());
      if (p.block_m < 1 || p.block_n < 1)
        return Status::InvalidArgument("BLOCK_M and BLOCK_N must be >= 1");
      return Status::Ok();
    }();
    if (!st.ok()) return ExecError::Invalid(st.message());
    const PpShapes sh = s;
    const int64_t nblk = (sh.P + sh.cb - 1) / sh.cb;
    const at::ScalarType ref_type = ReferenceType(env.dtype);
    plan->kernel = kName;
    plan->input_key = "";  // inputs and reference depend on the shapes and the seed only
    plan->make = [env, sh, nblk](uint64_t) {
      PpInputs in;
      in.q = at::randn({sh.B, sh.Q, sh.H, sh.D}, env.F32()).to(env.dtype);
      in.k = at::randn({sh.B, sh.Q, sh.Hkv, sh.D}, env.F32()).to(env.dtype);
      in.v = at::randn({sh.B, sh.Q, sh.Hkv, sh.D}, env.F32()).to(env.dtype);
      in.k_cache = at::randn({sh.B * nblk, sh.cb, sh.Hkv, sh.D}, env.F32()).to(env.dtype);
      in.v_cache = at::randn({sh.B * nblk, sh.cb, sh.Hkv, sh.D}, env.F32()).to(env.dtype);
      in.block_table = at::randperm(sh.B * nblk, env.I64()).view({sh.B, nblk});
      return in;
    };
    plan->run = [sh, p](const PpInputs& in) { return ContextAttention(in, sh, p); };
    plan->reference = [sh, ref_type](const PpInputs& in) {
      return ReferencePrefill(in, sh, ref_type);
    };
    plan->bytes = [](const PpInputs& in) {
      return static_cast<int64_t>(in.q.nbytes() + in.k.nbytes() + in.v.nbytes() +
                                  in.k_cache.nbytes() + in.v_cache.nbytes() +
                                  in.block_table.nbytes());
    };
    return ExecError{};
  }
};

}  // namespace

int RunPrefixPrefill(const BenchOptions& options, Emitter& out) {
  return RunFamily<PrefixPrefillFamily>(options, out);
}

std::unique_ptr<ExecutionServer> ServePrefixPrefill(const BenchOptions& options, Emitter& out) {
  return FamilyServer<PrefixPrefillFamily>::Make(options, out);
}

}  // namespace fleetsweep::torchbench
