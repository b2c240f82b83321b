#include "engine/checkpoint.hpp"

#include <cmath>
#include <cstdint>
#include <string_view>

#include "hairsim/error.hpp"
#include "io/file_bytes.hpp"

namespace hairsim::engine {
namespace {

constexpr std::string_view kMagic = "hairsim checkpoint 1\n";

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

}  // namespace

void write_checkpoint(const std::filesystem::path& file, const Checkpoint& checkpoint) {
  const std::string run = checkpoint.run.dump();
  std::string out(kMagic);
  out.reserve(kMagic.size() + run.size() + checkpoint.simulator.size() + 24);
  io::append_bytes(out, std::uint64_t(run.size()));
  out += run;
  io::append_bytes(out, std::uint64_t(checkpoint.simulator.size()));
  out += checkpoint.simulator;
  io::append_bytes(out, fnv1a(out));
  io::write_file_atomically(file, out);
}

Checkpoint read_checkpoint(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw Error(file.string(), "no checkpoint (was output.checkpoint_every set?)");
  const std::vector<char> bytes = io::read_file_bytes(file);
  const std::string_view all(bytes.data(), bytes.size());
  if (all.substr(0, kMagic.size()) != kMagic)
    throw Error(file_location(file, 0), "not a hairsim checkpoint");
  if (all.size() < kMagic.size() + 24) throw Error(file_location(file, 0), "truncated checkpoint");
  const std::string_view body = all.substr(0, all.size() - 8);
  io::ByteReader in(file, bytes, body.size());
  if (in.read<std::uint64_t>("checksum") != fnv1a(body))
    throw Error(file_location(file, body.size()), "checksum mismatch: a damaged checkpoint");
  io::ByteReader r(file, bytes, kMagic.size());
  Checkpoint c;
  const auto run_size = r.read<std::uint64_t>("JSON size");
  r.require(run_size, 1, "checkpoint JSON");
  const std::size_t run_at = r.offset();
  try {
    c.run = nlohmann::json::parse(all.substr(run_at, run_size));
  } catch (const nlohmann::json::exception&) {
    throw Error(file_location(file, run_at), "bad checkpoint JSON");
  }
  r.skip(run_size, "checkpoint JSON");
  const auto state_size = r.read<std::uint64_t>("state size");
  if (state_size != body.size() - r.offset())
    throw Error(file_location(file, r.offset()), "state size does not match the file");
  c.simulator.assign(all.substr(r.offset(), state_size));
  return c;
}

void CheckpointFields::fail(const std::string& field, const std::string& why) const {
  throw Error(file_.string() + ": " + field, why);
}

const nlohmann::json& CheckpointFields::find(const std::string& field) const {
  std::string pointer;
  for (const char c : field) pointer += c == '.' ? '/' : c;
  const nlohmann::json::json_pointer at("/" + pointer);
  if (!run_.contains(at)) fail(field, "missing from the checkpoint");
  return run_.at(at);
}

std::string CheckpointFields::text(const std::string& field) const {
  const nlohmann::json& v = find(field);
  if (!v.is_string()) fail(field, "must be a string (got " + v.dump() + ")");
  return v.get<std::string>();
}

long long CheckpointFields::integer(const std::string& field, long long lo, long long hi) const {
  const nlohmann::json& v = find(field);
  const std::string range = std::to_string(lo) + " .. " + std::to_string(hi);
  if (!v.is_number_integer())
    fail(field, "must be an integer in " + range + " (got " + v.dump() + ")");
  // An unsigned beyond long long's range is beyond any range asked here.
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(hi))
    fail(field, "must be in " + range + " (got " + v.dump() + ")");
  const long long n = v.get<long long>();
  if (n < lo || n > hi) fail(field, "must be in " + range + " (got " + v.dump() + ")");
  return n;
}

double CheckpointFields::number(const std::string& field) const {
  const nlohmann::json& v = find(field);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    fail(field, "must be a finite number (got " + v.dump() + ")");
  return v.get<double>();
}

const nlohmann::json& CheckpointFields::array(const std::string& field) const {
  const nlohmann::json& v = find(field);
  if (!v.is_array()) fail(field, "must be an array");
  return v;
}

}  // namespace hairsim::engine
