// The classification CSV reader: quoting (commas, doubled quotes, line breaks in fields), column choice
// by name, labels mapped to ids in sorted order, and errors that name the file, line and column.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "data/classification_csv.h"
#include "test_helpers.h"

using namespace tune;
using tune::testing::temp_dir;
using tune::testing::write_file;

namespace {

// The message of the std::invalid_argument `read` throws, or "" when it does not throw.
std::string csv_error(const std::string& path) {
  try {
    read_classification_csv(path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ClassificationCsv, QuotedFieldsKeepCommasQuotesAndLineBreaks) {
  const auto dir = temp_dir("csv");
  const auto path = write_file(dir / "d.csv",
                               "id,sentence,label\r\n"
                               "1,\"good, really \"\"good\"\"\",pos\r\n"
                               "2,\"two\nlines\",neg\n"
                               "3,plain,pos\n");
  const auto d = read_classification_csv(path);
  ASSERT_EQ(d.texts.size(), 3u);
  EXPECT_EQ(d.texts[0], "good, really \"good\"");
  EXPECT_EQ(d.texts[1], "two\nlines");
  EXPECT_EQ(d.text_column, "sentence");
  EXPECT_EQ(d.label_column, "label");
  EXPECT_EQ(d.label_names, (std::vector<std::string>{"neg", "pos"}));  // sorted: neg=0, pos=1
  EXPECT_EQ(d.labels, (std::vector<int>{1, 0, 1}));
}

TEST(ClassificationCsv, IntegerLabelsSortNumerically) {
  const auto dir = temp_dir("csv");
  const auto d = read_classification_csv(write_file(dir / "d.csv", "Text,Score\na,10\nb,2\nc,2\n"));
  EXPECT_EQ(d.label_names, (std::vector<std::string>{"2", "10"}));
  EXPECT_EQ(d.labels, (std::vector<int>{1, 0, 0}));
}

// Integers past a long long (the fuzzer's 64-digit label threw out of the sort), negatives and zeros, by value.
TEST(ClassificationCsv, IntegerLabelsOfAnyLengthSortByValue) {
  const auto dir = temp_dir("csv");
  const std::string huge = "22222222000000000000000000000000000000000000000178366598907847501";
  const auto d = read_classification_csv(
      write_file(dir / "d.csv", "text,label\na," + huge + "\nb,-30\nc,-4\nd,007\ne,0\nf,-0\ng,99999999999999999999\n"));
  EXPECT_EQ(d.label_names, (std::vector<std::string>{"-30", "-4", "-0", "0", "007", "99999999999999999999", huge}));
}

TEST(ClassificationCsv, ReadsFineFoodReviews) {
  const auto d = read_classification_csv(std::string(TUNE_SOURCE_DIR) + "/../shared/data/classification/fine_foods_train.csv");
  EXPECT_EQ(d.texts.size(), 4000u);
  EXPECT_EQ(d.text_column, "review");
  EXPECT_EQ(d.label_column, "score");
  EXPECT_EQ(d.label_names, (std::vector<std::string>{"great", "other"}));
}

TEST(ClassificationCsv, ErrorsNameFileLineAndColumn) {
  const auto dir = temp_dir("csv");
  const std::string missing = (dir / "nope.csv").string();
  EXPECT_NE(csv_error(missing).find(missing), std::string::npos) << csv_error(missing);

  const auto no_text = write_file(dir / "a.csv", "body,label\nx,1\n");
  EXPECT_NE(csv_error(no_text).find(no_text + ":1: no text column"), std::string::npos) << csv_error(no_text);
  EXPECT_NE(csv_error(no_text).find("'body'"), std::string::npos) << csv_error(no_text);

  const auto no_label = write_file(dir / "b.csv", "text,stars\nx,1\n");
  EXPECT_NE(csv_error(no_label).find("no label column"), std::string::npos) << csv_error(no_label);

  const auto short_row = write_file(dir / "c.csv", "text,label\nx,1\n\"multi\nline\",0\ny\n");
  EXPECT_NE(csv_error(short_row).find(short_row + ":5: expected 2 columns"), std::string::npos) << csv_error(short_row);

  const auto empty_label = write_file(dir / "d.csv", "text,label\nx,\n");
  EXPECT_NE(csv_error(empty_label).find(empty_label + ":2: column 'label' is empty"), std::string::npos)
      << csv_error(empty_label);

  const auto open_quote = write_file(dir / "e.csv", "text,label\nx,1\n\"never closed,1\n");
  EXPECT_NE(csv_error(open_quote).find(open_quote + ":3: unterminated"), std::string::npos) << csv_error(open_quote);

  const auto header_only = write_file(dir / "f.csv", "text,label\n");
  EXPECT_NE(csv_error(header_only).find("no rows"), std::string::npos) << csv_error(header_only);
}
