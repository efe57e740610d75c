// The token cache (src/data/token_cache.h): a hit returns exactly what encoding returns, any edit of a corpus or
// tokenizer file misses, and a corrupt or truncated entry is recomputed rather than trusted.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "data/text_corpus.h"
#include "data/token_cache.h"
#include "common/model_config.h"
#include "test_helpers.h"
#include "util/file_identity.h"
#include "util/hash.h"

using namespace tune;
using tune::testing::error_of;
using tune::testing::temp_dir;
using tune::testing::write_file;
namespace fs = std::filesystem;

namespace {

const std::string kSampleText = "In the beginning was the Word, and the Word was with God. And it was so.";

// A corpus file in a fresh folder; its path.
std::string sample_corpus(const std::string& name = "token-cache-corpus") {
  const fs::path file = temp_dir(name) / "text.txt";
  write_file(file, kSampleText);
  return file.string();
}

std::vector<int64_t> encoded_sample(const Tokenizer& tokenizer) { return tokenizer.encode(load_corpus(sample_corpus()).text); }

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
  const std::string corpus = sample_corpus();
  bool hit = true;
  const auto first = cached_encode(tokenizer, "", corpus, cache.string(), &hit);
  EXPECT_FALSE(hit);
  const auto second = cached_encode(tokenizer, "", corpus, cache.string(), &hit);
  EXPECT_TRUE(hit);
  EXPECT_EQ(first, encoded_sample(tokenizer));
  EXPECT_EQ(second, first);
}

TEST(TokenCache, AnEditedCorpusOrTokenizerFileNamesAnotherEntry) {
  const HashWordTokenizer tokenizer(resolve_model("bert-tiny"));
  const std::string corpus = sample_corpus();
  const std::string key = token_cache_key(tokenizer, "", corpus);
  EXPECT_EQ(token_cache_key(tokenizer, "", corpus), key);
  EXPECT_NE(token_cache_key(HashWordTokenizer(resolve_model("gpt2-tiny")), "", corpus), key);
  // Same size, new text: the file's time moves (set explicitly: two writes may share a coarse clock tick).
  write_file(corpus, std::string(kSampleText).replace(0, 2, "At"));
  fs::last_write_time(corpus, fs::last_write_time(corpus) + std::chrono::seconds(1));
  EXPECT_NE(token_cache_key(tokenizer, "", corpus), key);
  const fs::path folder = fs::path(corpus).parent_path();
  const std::string folder_key = token_cache_key(tokenizer, "", folder.string());
  write_file(folder / "more.txt", "More words.");  // a file added to a corpus folder
  EXPECT_NE(token_cache_key(tokenizer, "", folder.string()), folder_key);
  EXPECT_NE(error_of([&] { token_cache_key(tokenizer, "", "/no/such/corpus"); }).find("/no/such/corpus"), std::string::npos);
  const fs::path dir = temp_dir("token-cache-files");
  write_file(dir / "vocab.txt", "[PAD]\nthe\n");
  const std::string with_files = token_cache_key(tokenizer, dir.string(), corpus);
  EXPECT_NE(with_files, key);
  write_file(dir / "vocab.txt", "[PAD]\nthe\nword\n");  // same folder, edited vocabulary
  fs::last_write_time(dir / "vocab.txt", fs::last_write_time(dir / "vocab.txt") + std::chrono::seconds(1));
  EXPECT_NE(token_cache_key(tokenizer, dir.string(), corpus), with_files);
}

TEST(TokenCache, TruncatedOrCorruptEntryIsRecomputed) {
  const fs::path cache = temp_dir("token-cache-corrupt");
  const HashWordTokenizer tokenizer(resolve_model("bert-tiny"));
  const std::string corpus = sample_corpus();
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
  {  // ids overwritten in place, the size unchanged: only the checksum tells
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(entry) / 2));
    f.write("\x7f\x7f\x7f\x7f", 4);
  }
  EXPECT_EQ(cached_encode(tokenizer, "", corpus, cache.string(), &hit), expected);
  EXPECT_FALSE(hit);
}

TEST(TokenCache, NoCacheFolderMeansPlainEncoding) {
  const HashWordTokenizer tokenizer(resolve_model("bert-tiny"));
  bool hit = true;
  EXPECT_EQ(cached_encode(tokenizer, "", sample_corpus(), "", &hit), encoded_sample(tokenizer));
  EXPECT_FALSE(hit);
}

// The store's input identity is by content: the same files copied to another folder (a clone, another machine)
// and rewritten later (scripts/setup writes the corpus anew) hash alike, where the metadata identity differs; one
// byte changed, a renamed file or a file added to a folder hashes otherwise.
TEST(FileIdentity, ContentIdentitySurvivesACopyAndARewriteButNotAnEdit) {
  namespace fs = std::filesystem;
  const fs::path a = tune::testing::temp_dir("identity-a"), b = tune::testing::temp_dir("identity-b");
  tune::testing::write_file(a / "corpus.txt", "in the beginning\n");
  tune::testing::write_file(a / "vocab.txt", "[PAD]\n[UNK]\n");
  fs::copy(a, b, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  fs::last_write_time(b / "corpus.txt", fs::last_write_time(a / "corpus.txt") + std::chrono::hours(30));
  const auto content = [](const fs::path& p) { return tune::hash_path_content(tune::kStableHashSeed, p.string()); };
  const auto metadata = [](const fs::path& p) { return tune::hash_path_identity(tune::kStableHashSeed, p.string()); };
  EXPECT_EQ(content(a), content(b));
  EXPECT_EQ(content(a / "corpus.txt"), content(b / "corpus.txt"));
  EXPECT_NE(metadata(a), metadata(b));
  tune::testing::write_file(b / "corpus.txt", "in the beginninG\n");
  EXPECT_NE(content(a), content(b));
  tune::testing::write_file(b / "corpus.txt", "in the beginning\n");
  EXPECT_EQ(content(a), content(b));
  fs::rename(b / "vocab.txt", b / "vocab2.txt");
  EXPECT_NE(content(a), content(b));
  fs::rename(b / "vocab2.txt", b / "vocab.txt");
  tune::testing::write_file(b / "extra.json", "{}");
  EXPECT_NE(content(a), content(b));
}
