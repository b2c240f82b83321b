#pragma once
// Raw bytes of a simulator's state for checkpoints (Simulator::save_state): values appended in
// the machine's own representation, so a restored state is the saved one bit for bit. Not a
// portable format: a checkpoint is read back by the same build on the same kind of machine.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "hairsim/error.hpp"

namespace hairsim::engine {

// Values whose bytes are the value: trivially copyable types, and fixed-size Eigen vectors
// (plain arrays of scalars with user-written copies, hence not "trivially copyable").
template <class T>
inline constexpr bool kPlainBytes = std::is_trivially_copyable_v<T> ||
                                    (std::is_standard_layout_v<T> &&
                                     std::is_trivially_destructible_v<T>);

class StateWriter {
 public:
  explicit StateWriter(std::string& out) : out_(out) {}
  template <class T>
  void value(const T& v) {
    static_assert(kPlainBytes<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void bytes(const void* data, std::size_t size) {
    value(std::uint64_t(size));
    out_.append(static_cast<const char*>(data), size);
  }
  template <class T>
  void values(const std::vector<T>& v) {
    static_assert(kPlainBytes<T>);
    bytes(v.data(), v.size() * sizeof(T));
  }

 private:
  std::string& out_;
};

// Reads what a StateWriter wrote, in the same order; throws Error("checkpoint", ...) when the
// bytes run out or a size differs from the simulator's (a state of another setup).
class StateReader {
 public:
  explicit StateReader(std::string_view in) : in_(in) {}
  template <class T>
  void value(T& v) {
    static_assert(kPlainBytes<T>);
    take(&v, sizeof v);
  }
  template <class T>
  T value() {
    T v{};
    value(v);
    return v;
  }
  // Exactly `size` bytes into `data`.
  void bytes(void* data, std::size_t size) {
    if (value<std::uint64_t>() != size)
      throw Error("checkpoint", "the saved state does not fit this simulator (another setup?)");
    take(data, size);
  }
  // A vector of exactly the size it has.
  template <class T>
  void values(std::vector<T>& v) {
    bytes(v.data(), v.size() * sizeof(T));
  }
  // A vector of the size saved (an active set, say).
  template <class T>
  void resized_values(std::vector<T>& v) {
    const std::uint64_t size = value<std::uint64_t>();
    if (size % sizeof(T) != 0 || size > in_.size())
      throw Error("checkpoint", "the saved state is truncated or of another build");
    v.resize(size / sizeof(T));
    take(v.data(), size);
  }
  bool done() const { return in_.empty(); }

 private:
  void take(void* data, std::size_t size) {
    if (in_.size() < size) throw Error("checkpoint", "the saved state is truncated");
    std::memcpy(data, in_.data(), size);
    in_.remove_prefix(size);
  }
  std::string_view in_;
};

}  // namespace hairsim::engine
