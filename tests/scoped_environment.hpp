#pragma once
// An environment variable set for a test's scope.
#include <cstdlib>
#include <optional>
#include <string>

namespace hairsim::test {

// Sets an environment variable for a scope (the lanes a simulator made inside it steps a strand
// on: HAIRSIM_CPU_LANES, HAIRSIM_CUDA_LANES), restoring what was there.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnvironment() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace hairsim::test
