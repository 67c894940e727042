// libFuzzer target: the constraint language (common/space/expr.h). Parse must succeed or fail
// with kInvalidArgument and a column inside the text; Eval on a small configuration must succeed
// or fail with kInvalidArgument. The same property as common/space/expr_fuzz_test.cc, unbounded.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/space/expr.h"

namespace {

const fleetsweep::Config& FuzzConfig() {
  using fleetsweep::Value;
  static const fleetsweep::Config kConfig = {{"a", Value(3)},
                                             {"b", Value(0)},
                                             {"c", Value(2.5)},
                                             {"d", Value(true)},
                                             {"s", Value("fp16")},
                                             {"big", Value(int64_t{1} << 62)},
                                             {"neg", Value(int64_t{-9223372036854775807LL - 1})}};
  return kConfig;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  int column = 0;
  auto expr = fleetsweep::Expr::Parse(text, &column);
  if (!expr.ok()) {
    if (expr.status().code() != fleetsweep::StatusCode::kInvalidArgument) std::abort();
    if (column < 1 || column > static_cast<int>(text.size()) + 1) std::abort();
    return 0;
  }
  auto value = (*expr)->Eval(FuzzConfig());
  if (!value.ok() && value.status().code() != fleetsweep::StatusCode::kInvalidArgument) {
    std::abort();
  }
  return 0;
}
