#include "hairsim/units.hpp"

#include "hairsim/error.hpp"

namespace hairsim {

double metres_per_unit(LengthUnit unit) {
  switch (unit) {
    case LengthUnit::m:
      return 1.0;
    case LengthUnit::cm:
      return 0.01;
    case LengthUnit::mm:
      return 0.001;
  }
  return 1.0;
}

LengthUnit parse_length_unit(std::string_view text, const std::string& where) {
  if (text == "m") return LengthUnit::m;
  if (text == "cm") return LengthUnit::cm;
  if (text == "mm") return LengthUnit::mm;
  throw Error(where, "unknown length unit '" + std::string(text) + "' (expected m, cm or mm)");
}

std::string to_string(LengthUnit unit) {
  switch (unit) {
    case LengthUnit::m:
      return "m";
    case LengthUnit::cm:
      return "cm";
    case LengthUnit::mm:
      return "mm";
  }
  return "m";
}

}  // namespace hairsim
