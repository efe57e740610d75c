// Minimal PNG reader: chunks, zlib inflate of the IDAT stream, and the five scanline filters
// (PNG spec section 9). Enough for Chromium's screenshots; anything else is refused by name.
#include "png_image.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace tune::testing {
namespace {

uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return static_cast<uint8_t>(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

// Undoes one scanline's filter in place, given the previous (already unfiltered) line.
void unfilter(uint8_t type, uint8_t* line, const uint8_t* previous, size_t length, int bpp) {
  for (size_t i = 0; i < length; ++i) {
    const int a = i >= size_t(bpp) ? line[i - bpp] : 0, b = previous ? previous[i] : 0;
    const int c = previous && i >= size_t(bpp) ? previous[i - bpp] : 0;
    switch (type) {
      case 0: break;
      case 1: line[i] += a; break;
      case 2: line[i] += b; break;
      case 3: line[i] += (a + b) / 2; break;
      case 4: line[i] += paeth(a, b, c); break;
      default: throw std::runtime_error("unknown PNG filter type " + std::to_string(type));
    }
  }
}

}  // namespace

RgbImage read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (bytes.size() < 33 || std::memcmp(bytes.data(), "\x89PNG\r\n\x1a\n", 8) != 0)
    throw std::runtime_error("'" + path + "' is not a PNG file");
  RgbImage image;
  int color_type = 0;
  std::vector<uint8_t> compressed;
  for (size_t at = 8; at + 8 <= bytes.size();) {
    const uint32_t length = be32(&bytes[at]);
    const std::string type(reinterpret_cast<const char*>(&bytes[at + 4]), 4);
    const uint8_t* data = &bytes[at + 8];
    if (at + 12 + length > bytes.size()) throw std::runtime_error("'" + path + "': truncated chunk " + type);
    if (type == "IHDR") {
      image.width = static_cast<int>(be32(data));
      image.height = static_cast<int>(be32(data + 4));
      color_type = data[9];
      if (data[8] != 8 || (color_type != 2 && color_type != 6) || data[12] != 0)
        throw std::runtime_error("'" + path + "': only 8-bit RGB/RGBA non-interlaced PNGs are read");
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    }
    at += 12 + length;
  }
  const int bpp = color_type == 6 ? 4 : 3;
  const size_t stride = static_cast<size_t>(image.width) * bpp;
  std::vector<uint8_t> raw(image.height * (stride + 1));
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, compressed.data(), compressed.size()) != Z_OK || raw_size != raw.size())
    throw std::runtime_error("'" + path + "': corrupt image data");
  image.rgb.resize(static_cast<size_t>(image.width) * image.height * 3);
  for (int y = 0; y < image.height; ++y) {
    uint8_t* line = &raw[y * (stride + 1) + 1];
    unfilter(line[-1], line, y ? &raw[(y - 1) * (stride + 1) + 1] : nullptr, stride, bpp);
    for (int x = 0; x < image.width; ++x) std::memcpy(&image.rgb[(size_t(y) * image.width + x) * 3], line + x * bpp, 3);
  }
  return image;
}

}  // namespace tune::testing
