// A failure class as users read it ("exit_code", "launch", "timeout"), never the protobuf
// enum's name (FAILURE_CLASS_EXIT_CODE): what the summary, results.json, the logs and
// `fleetsweep watch` print.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

// "exit_code" for FAILURE_CLASS_EXIT_CODE; "unspecified" for 0; the number for a value this build
// does not know.
std::string FailureClassText(v1::FailureClass failure_class);
// The same from the enum's name as stored in events ("FAILURE_CLASS_LAUNCH" -> "launch"); any
// other text is returned unchanged.
std::string FailureClassText(const std::string& enum_name);

}  // namespace fleetsweep
