// On-disk cache of tokenized corpora: key from tokenizer and text, a small header (magic, count, key) and the
// ids as int32; anything that does not read back whole is treated as absent.
#include "data/token_cache.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/file_identity.h"
#include "util/hash.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

constexpr char kMagic[8] = {'t', 'u', 'n', 'e', 't', 'o', 'k', '3'};  // bump with any change of layout or key

// The ids' checksum, stored after them: bytes overwritten in place (same size) read back as other tokens, which
// no size check notices.
uint64_t ids_checksum(const std::vector<int32_t>& ids) {
  return stable_hash_update(kStableHashSeed, std::string(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(int32_t)));
}

std::vector<int64_t> read_entry(const fs::path& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof kMagic];
  uint64_t count = 0;
  std::string stored_key(key.size(), '\0');
  if (!in.read(magic, sizeof magic) || !std::equal(magic, magic + sizeof magic, kMagic)) return {};
  if (!in.read(stored_key.data(), static_cast<std::streamsize>(stored_key.size())) || stored_key != key) return {};
  if (!in.read(reinterpret_cast<char*>(&count), sizeof count) || count == 0) return {};
  std::vector<int32_t> ids(count);
  if (!in.read(reinterpret_cast<char*>(ids.data()), static_cast<std::streamsize>(count * sizeof(int32_t)))) return {};
  uint64_t checksum = 0;
  if (!in.read(reinterpret_cast<char*>(&checksum), sizeof checksum) || checksum != ids_checksum(ids)) return {};
  if (in.peek() != std::char_traits<char>::eof()) return {};  // trailing bytes: not what we wrote
  return std::vector<int64_t>(ids.begin(), ids.end());
}

// Ids beyond int32 are never cached (no vocabulary is that large; the entry would not read back equal).
void write_entry(const fs::path& path, const std::string& key, const std::vector<int64_t>& ids) {
  if (ids.empty() || std::any_of(ids.begin(), ids.end(), [](int64_t id) { return id < 0 || id > INT32_MAX; })) return;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    const std::vector<int32_t> narrow(ids.begin(), ids.end());
    const uint64_t count = narrow.size();
    out.write(kMagic, sizeof kMagic).write(key.data(), static_cast<std::streamsize>(key.size()));
    out.write(reinterpret_cast<const char*>(&count), sizeof count);
    out.write(reinterpret_cast<const char*>(narrow.data()), static_cast<std::streamsize>(count * sizeof(int32_t)));
    const uint64_t checksum = ids_checksum(narrow);
    out.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace

std::string tune_cache_dir() {
  if (const char* dir = std::getenv("TUNE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "tune").string();
  if (const char* home = std::getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "tune").string();
  return "";
}

std::string token_cache_key(const Tokenizer& tokenizer, const std::string& tokenizer_dir, const std::string& corpus_path) {
  uint64_t h = stable_hash_update(kStableHashSeed, std::string(kMagic, sizeof kMagic) + tokenizer.describe() + '\0');
  if (!tokenizer_dir.empty()) h = hash_path_identity(h, tokenizer_dir);
  h = stable_hash_update(h, std::string("corpus\0", 7));
  for (const auto& file : corpus_files(corpus_path)) h = hash_file_identity(h, file);
  return stable_hash_hex(h);
}

std::vector<int64_t> cached_encode(const Tokenizer& tokenizer, const std::string& tokenizer_dir,
                                   const std::string& corpus_path, const std::string& cache_dir, bool* hit) {
  if (hit) *hit = false;
  if (cache_dir.empty()) return tokenizer.encode(load_corpus(corpus_path).text);
  const std::string key = token_cache_key(tokenizer, tokenizer_dir, corpus_path);
  const fs::path path = fs::path(cache_dir) / "tokens" / (key + ".ids");
  std::vector<int64_t> ids = read_entry(path, key);
  if (!ids.empty()) {
    if (hit) *hit = true;
    return ids;
  }
  ids = tokenizer.encode(load_corpus(corpus_path).text);
  write_entry(path, key, ids);
  return ids;
}

}  // namespace tune
