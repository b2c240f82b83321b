#pragma once
// Length units of files. Inside hairsim everything is SI (metres); files are converted on
// load and on write, never later.
#include <string>
#include <string_view>

namespace hairsim {

enum class LengthUnit { m, cm, mm };

// Metres per one file unit: 1, 0.01, 0.001.
double metres_per_unit(LengthUnit unit);
// "m", "cm", "mm"; throws Error naming `where` for anything else.
LengthUnit parse_length_unit(std::string_view text, const std::string& where = "--units");
std::string to_string(LengthUnit unit);

}  // namespace hairsim
