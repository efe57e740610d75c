// The token cache (src/data/token_cache.h): a hit returns exactly what encoding returns, any change of text or
// tokenizer files misses, and a corrupt or truncated entry is recomputed rather than trusted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "data/token_cache.h"
#include "models/model_config.h"
#include "test_helpers.h"

using namespace tune;
using tune::testing::temp_dir;
using tune::testing::write_file;
namespace fs = std::filesystem;

namespace {

Corpus sample_corpus(const std::string& extra = "") {
  return {"test", "In the beginning was the Word, and the Word was with God. " + extra + "And it was so."};
}

fs::path only_entry(const fs::path& cache) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(cache / "tokens")) files.push_back(e.path());
  EXPECT_EQ(files.size(), 1u);
  return files.empty() ? fs::path() : files.front();
}

}  // namespace

TEST(TokenCache, SecondEncodeIsAHitEqualToEncoding) {
  const fs::path cache = temp_dir("token-cache");
  const HashWordTokenizer tokenizer(resolve_model("bert-tiny"));
  const Corpus corpus = sample_corpus();
  bool hit = true;
  const auto first = cached_encode(tokenizer, "", corpus, cache.string(), &hit);
  EXPECT_FALSE(hit);
  const auto second = cached_encode(tokenizer, "", corpus, cache.string(), &hit);
  EXPECT_TRUE(hit);
  EXPECT_EQ(first, tokenizer.encode(corpus.text));
  EXPECT_EQ(second, first);
}

TEST(TokenCache, OtherTextOrTokenizerFilesNameAnotherEntry) {
  const HashWordTokenizer tokenizer(resolve_model("bert-tiny"));
  const Corpus corpus = sample_corpus();
  const std::string key = token_cache_key(tokenizer, "", corpus);
  EXPECT_NE(token_cache_key(tokenizer, "", sample_corpus("More words. ")), key);
  EXPECT_NE(token_cache_key(HashWordTokenizer(resolve_model("gpt2-tiny")), "", corpus), key);
  const fs::path dir = temp_dir("token-cache-files");
  write_file(dir / "vocab.txt", "[PAD]\nthe\n");
  const std::string with_files = token_cache_key(tokenizer, dir.string(), corpus);
  EXPECT_NE(with_files, key);
  write_file(dir / "vocab.txt", "[PAD]\nthe\nword\n");  // same folder, edited vocabulary
  EXPECT_NE(token_cache_key(tokenizer, dir.string(), corpus), with_files);
}

TEST(TokenCache, TruncatedOrCorruptEntryIsRecomputed) {
  const fs::path cache = temp_dir("token-cache-corrupt");
  const HashWordTokenizer tokenizer(resolve_model("bert-tiny"));
  const Corpus corpus = sample_corpus();
  const auto expected = cached_encode(tokenizer, "", corpus, cache.string());
  const fs::path entry = only_entry(cache);
  fs::resize_file(entry, fs::file_size(entry) - 4);  // the last id cut off, as by a full disk
  bool hit = true;
  EXPECT_EQ(cached_encode(tokenizer, "", corpus, cache.string(), &hit), expected);
  EXPECT_FALSE(hit);
  std::fstream(entry, std::ios::in | std::ios::out | std::ios::binary).write("garbage!", 8);  // magic overwritten
  EXPECT_EQ(cached_encode(tokenizer, "", corpus, cache.string(), &hit), expected);
  EXPECT_FALSE(hit);
  EXPECT_EQ(cached_encode(tokenizer, "", corpus, cache.string(), &hit), expected);
  EXPECT_TRUE(hit);  // rewritten whole by the recompute
}

TEST(TokenCache, NoCacheFolderMeansPlainEncoding) {
  const HashWordTokenizer tokenizer(resolve_model("bert-tiny"));
  bool hit = true;
  EXPECT_EQ(cached_encode(tokenizer, "", sample_corpus(), "", &hit), tokenizer.encode(sample_corpus().text));
  EXPECT_FALSE(hit);
}
