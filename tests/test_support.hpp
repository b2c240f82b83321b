#pragma once
// Helpers shared by the test files: fixture paths, scratch directories, running the CLI.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numbers>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

namespace hairsim::test {

inline std::filesystem::path data_path(const std::string& name) {
  return std::filesystem::path(HAIRSIM_TEST_DATA_DIR) / name;
}

// A fresh empty directory per test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("hairsim_test_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }
  // Names of the files in the directory.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::vector<char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A JSON file (a run's summary.json) parsed.
inline nlohmann::json read_json(const std::filesystem::path& p) {
  const auto b = read_bytes(p);
  return nlohmann::json::parse(b.begin(), b.end());
}

// A run's progress stream that asks the run to stop (as Ctrl-C does: RunControl's stop flag)
// once it reports frame `frame` or a later one (its line "frame N/M ..."); the stream's other
// lines (the setup's progress, notices) do not count.
struct StopAtFrameLine : std::streambuf {
  StopAtFrameLine(std::atomic<bool>& stop, int frame) : stop_(stop), frame_(frame) {}
  int overflow(int c) override {
    if (c != '\n') {
      line_ += char(c);
      return c;
    }
    if (line_.rfind("frame ", 0) == 0 && std::atoi(line_.c_str() + 6) >= frame_) stop_ = true;
    line_.clear();
    return c;
  }

 private:
  std::atomic<bool>& stop_;
  int frame_;
  std::string line_;
};

struct CliResult {
  int exit_code;
  std::string out, err;
};

// Runs the hairsim executable with `args` (already shell-quoted), capturing stdout and stderr.
inline CliResult run_cli(const std::string& args, const ScratchDir& dir) {
  const auto out = dir / "cli.stdout", err = dir / "cli.stderr";
  const std::string cmd = std::string("'") + HAIRSIM_CLI + "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "' </dev/null";
  const int status = std::system(cmd.c_str());
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, {}, {}};
  auto slurp = [](const std::filesystem::path& p) {
    const auto b = read_bytes(p);
    return std::string(b.begin(), b.end());
  };
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Angular frequency of a sampled oscillation about zero: the mean spacing of its upward zero
// crossings (linearly interpolated), 2π / period. NaN with fewer than two crossings.
inline double crossing_frequency(const std::vector<double>& t, const std::vector<double>& y) {
  std::vector<double> up;
  for (std::size_t i = 1; i < y.size(); ++i)
    if (y[i - 1] < 0 && y[i] >= 0)
      up.push_back(t[i - 1] + (t[i] - t[i - 1]) * -y[i - 1] / (y[i] - y[i - 1]));
  if (up.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  return 2 * std::numbers::pi * static_cast<double>(up.size() - 1) / (up.back() - up.front());
}

// trace.csv as columns by header name.
inline std::map<std::string, std::vector<double>> read_trace(const std::filesystem::path& p) {
  const auto bytes = test::read_bytes(p);
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::string line, cell;
  std::getline(in, line);
  std::vector<std::string> names;
  for (std::istringstream header(line); std::getline(header, cell, ',');) names.push_back(cell);
  std::map<std::string, std::vector<double>> columns;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (const std::string& name : names) {
      std::getline(row, cell, ',');
      columns[name].push_back(std::stod(cell));
    }
  }
  return columns;
}

}  // namespace hairsim::test
