// PNG output through libpng, into memory, then written atomically; and PNG input (any PNG as
// 8-bit RGB) through libpng's simplified API.
#include <png.h>

#include "hairsim/render.hpp"
#include "io/file_bytes.hpp"

namespace hairsim {
namespace {
void append_to_string(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}
void no_flush(png_structp) {}
}  // namespace

void write_png(const std::filesystem::path& path, const Image& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != std::size_t(3) * image.width * image.height)
    throw Error(file_location(path), "image buffer does not match its size");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_write_struct(&png, &info);
    throw Error(file_location(path), "libpng could not be initialised");
  }
  std::string bytes;
  std::vector<png_bytep> rows(image.height);
  for (int y = 0; y < image.height; ++y)
    rows[y] = const_cast<png_bytep>(image.rgb.data() + std::size_t(3) * image.width * y);
  // libpng reports errors by longjmp: no C++ objects with destructors are created below.
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw Error(file_location(path), "libpng failed to encode the image");
  }
  png_set_write_fn(png, &bytes, append_to_string, no_flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
               static_cast<png_uint_32>(image.height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  io::write_file_atomically(path, bytes);
}

Image read_png(const std::filesystem::path& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str()))
    throw Error(file_location(path), std::string("cannot read the PNG (") + png.message + ")");
  png.format = PNG_FORMAT_RGB;  // any colour type and depth, converted to 8-bit RGB
  Image image;
  image.width = int(png.width);
  image.height = int(png.height);
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr)) {
    png_image_free(&png);
    throw Error(file_location(path), std::string("cannot decode the PNG (") + png.message + ")");
  }
  return image;
}

}  // namespace hairsim
