#pragma once
// Whitespace-separated tokens of a text file, with the byte offset and line of each, for the
// ascii formats (PLY ascii, OBJ, USDA). Numbers are parsed with std::from_chars in the
// declared precision, so float data written with format_number() reads back exactly.
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "file_bytes.hpp"

namespace hairsim::io {

class TextScanner {
 public:
  TextScanner(const std::filesystem::path& path, std::string_view text, std::size_t start = 0)
      : path_(path), text_(text), pos_(start) {}

  std::size_t offset() const { return pos_; }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  std::size_t line_of(std::size_t at) const {
    std::size_t line = 1;
    for (std::size_t i = 0; i < at && i < text_.size(); ++i) line += text_[i] == '\n';
    return line;
  }
  [[noreturn]] void fail(std::size_t at, const std::string& why) const {
    throw Error(file_location(path_, at) + " (line " + std::to_string(line_of(at)) + ")", why);
  }

  // Next token on any line; fails with `what` at the end of the text.
  std::string_view token(const char* what) {
    skip_space();
    if (pos_ >= text_.size()) fail(pos_, std::string("unexpected end of file, expected ") + what);
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
    last_token_ = begin;
    return text_.substr(begin, pos_ - begin);
  }
  // Next token on the current line, or empty at the end of the line.
  std::string_view token_on_line() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
    if (pos_ >= text_.size() || text_[pos_] == '\n') return {};
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
    last_token_ = begin;
    return text_.substr(begin, pos_ - begin);
  }
  // Skips the rest of the current line, newline included.
  void next_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    if (pos_ < text_.size()) ++pos_;
  }
  std::size_t last_token_offset() const { return last_token_; }

  template <class T>
  T number(std::string_view tok, const char* what) const {
    T value{};
    auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), value);
    if (ec != std::errc() || end != tok.data() + tok.size())
      fail(last_token_, std::string("expected ") + what + ", found '" + std::string(tok) + "'");
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(value)) fail(last_token_, std::string("non-finite value for ") + what);
    }
    return value;
  }
  template <class T>
  T next_number(const char* what) {
    return number<T>(token(what), what);
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }

  const std::filesystem::path& path_;
  std::string_view text_;
  std::size_t pos_;
  std::size_t last_token_ = 0;
};

}  // namespace hairsim::io
