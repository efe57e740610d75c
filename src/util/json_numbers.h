// A guard for JSON from outside (a trial's result.json, a spec.json): nlohmann turns a float into an integer field
// by a plain cast, undefined behaviour out of range, so such a number is refused first (found by fuzzing).
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace tune {

// Throws std::invalid_argument naming `where` when a float anywhere in j lies outside the 64-bit integer range
// (no field of a trial file holds one there; an integer field would read it as undefined behaviour).
inline void check_json_numbers_fit(const nlohmann::json& j, const std::string& where) {
  if (j.is_structured()) {
    for (const auto& item : j) check_json_numbers_fit(item, where);
  } else if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!(v > -9.2e18 && v < 9.2e18))
      throw std::invalid_argument(where + ": number " + j.dump() + " is out of range");
  }
}

}  // namespace tune
