// Replays a fuzz target's corpus without libFuzzer (CI, any compiler): every file of the folders
// (or the files) given on the command line goes through LLVMFuzzerTestOneInput once. The target
// lets anything but hairsim::Error escape, so an uncaught exception fails the replay here, naming
// the file; a crash fails it by the process's own death.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      std::cerr << "replay: " << arg.string() << ": no such file or folder\n";
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::cerr << "replay: no corpus files given\n";
    return 2;
  }
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                  std::istreambuf_iterator<char>()};
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::cerr << "replay: " << file.string() << ": uncaught exception: " << e.what() << "\n";
      return 1;
    } catch (...) {
      std::cerr << "replay: " << file.string() << ": uncaught exception of unknown type\n";
      return 1;
    }
  }
  std::cout << "replay: " << files.size() << " inputs, no finding\n";
  return 0;
}
