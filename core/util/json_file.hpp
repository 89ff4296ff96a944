#pragma once
// A JSON file a user hands a command (a calibration, a tune session, a report JSON), read
// with the place of a mistake: "FILE:LINE:COL: error: not valid JSON (EXPECTED)".
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace gsr {

/// The parsed file. gsr::Error naming the file when it cannot be read, and its line and
/// column when it is not JSON; `expected` says what the file should hold.
nlohmann::json read_json_file(const std::string& path, std::string_view expected);

} // namespace gsr
