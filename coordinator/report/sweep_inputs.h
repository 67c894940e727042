// SweepInputs: everything `fleetsweep export` reads about a finished sweep in DIR: results.json,
// and from the embedded store DIR/store (when present) the spec text and the attempts.
//
// Thread-safety: LoadSweepInputs does file I/O only; the result is a plain value.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/space/spec.h"
#include "common/status.h"
#include "common/store/store.h"
#include "fleetsweep/v1/data.pb.h"
#include "nlohmann/json.hpp"

namespace fleetsweep {

struct SweepInputs {
  nlohmann::json results;             // DIR/results.json
  std::optional<SweepSpec> spec;      // parsed from the store; nullopt without a store
  std::vector<v1::Attempt> attempts;  // from the store; empty without a store
  std::vector<std::string> notes;     // what could not be read and was skipped
};

// Errors: kNotFound without DIR/results.json; kInvalidArgument when it is not a JSON object.
// A missing or locked store is not an error (notes says so); a stored spec that does not parse is
// kInvalidArgument.
StatusOr<SweepInputs> LoadSweepInputs(const std::string& dir);

// DIR/store (the sweep's embedded file store), opened; the caller owns it. kNotFound when DIR has
// no store folder, else OpenStore's error (e.g. the store is locked by a running sweep).
StatusOr<std::unique_ptr<ResultStore>> OpenEmbeddedStore(const std::string& dir);

// The configuration `export` uses from a results document: the winner, else the first of the
// tied set, else the best-ranked configuration with samples; nullptr when none has samples.
const nlohmann::json* ChosenConfig(const nlohmann::json& results);

}  // namespace fleetsweep
