// Decodes the PNG screenshots headless Chromium writes (8-bit RGB or RGBA, not interlaced) into RGB
// pixels, so the screenshot test can count what was drawn in each chart's box.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tune::testing {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;  // row-major, 3 bytes a pixel

  const uint8_t* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
};

// Throws std::runtime_error naming the file and what is unsupported or corrupt.
RgbImage read_png(const std::string& path);

}  // namespace tune::testing
