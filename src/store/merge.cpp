// Merging one tune database into another (tune merge, tune sweep): SQL over an ATTACHed file, studies matched by
// their key and trials by their config key, so the merge is idempotent and never mixes different studies.
#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "store/database.h"
#include "store/sqlite_statement.h"
#include "util/join.h"

namespace tune {
namespace {

constexpr const char* kSource = "merge_src";

// The source's rows matched to this database's by study key (and config key for trials), where both hold values.
const char* const kConflictQueries[] = {
    "SELECT ss.model AS model, ss.backend AS backend, ss.precision AS precision, ss.seq_len AS seq_len,"
    " 'trial ' || st.config_key AS what FROM merge_src.trials st JOIN merge_src.studies ss ON ss.id = st.study_id"
    " JOIN main.studies ms ON ms.study_key = ss.study_key"
    " JOIN main.trials mt ON mt.study_id = ms.id AND mt.config_key = st.config_key"
    " WHERE mt.result_json <> st.result_json LIMIT 1",
    "SELECT ss.model AS model, ss.backend AS backend, ss.precision AS precision, ss.seq_len AS seq_len,"
    " 'best config' AS what FROM merge_src.best_configs sb JOIN merge_src.studies ss ON ss.id = sb.study_id"
    " JOIN main.studies ms ON ms.study_key = ss.study_key JOIN main.best_configs mb ON mb.study_id = ms.id"
    " WHERE mb.batch_size <> sb.batch_size OR mb.learning_rate <> sb.learning_rate"
    " OR mb.samples_per_second <> sb.samples_per_second LIMIT 1",
    "SELECT ss.model AS model, ss.backend AS backend, ss.precision AS precision, ss.seq_len AS seq_len,"
    " 'screen verdict' AS what FROM merge_src.screen_verdicts sv JOIN merge_src.studies ss ON ss.id = sv.study_id"
    " JOIN main.studies ms ON ms.study_key = ss.study_key JOIN main.screen_verdicts mv ON mv.study_id = ms.id"
    " WHERE mv.batch_size <> sv.batch_size OR mv.kept <> sv.kept LIMIT 1",
};

// Attached for the merge's lifetime; a failed merge rolls back before it detaches.
class AttachedSource {
 public:
  AttachedSource(sqlite3* db, const std::string& path) : db_(db) {
    Statement attach(db_, std::string("ATTACH DATABASE ? AS ") + kSource);
    attach.bind(1, path);
    attach.step();
  }
  ~AttachedSource() {
    if (in_transaction_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_exec(db_, (std::string("DETACH DATABASE ") + kSource).c_str(), nullptr, nullptr, nullptr);
  }
  void begin() { run("BEGIN IMMEDIATE"), in_transaction_ = true; }
  void commit() { run("COMMIT"), in_transaction_ = false; }
  int run_counting(const std::string& sql) {
    run(sql);
    return sqlite3_changes(db_);
  }

 private:
  void run(const std::string& sql) {
    Statement s(db_, sql);
    while (s.step()) {}
  }
  sqlite3* db_;
  bool in_transaction_ = false;
};

std::string prefixed(const std::vector<std::string>& columns, const std::string& alias) {
  std::vector<std::string> out;
  for (const auto& c : columns) out.push_back(alias + "." + c);
  return join(out);
}

// Rows of a per-study table (best_configs, screen_verdicts) for studies this database has none for.
std::string copy_per_study_rows(const std::string& table, const std::vector<std::string>& columns) {
  return "INSERT INTO main." + table + " (study_id, " + join(columns) + ") SELECT ms.id, " + prefixed(columns, "t") +
         " FROM merge_src." + table + " t JOIN merge_src.studies ss ON ss.id = t.study_id"
         " JOIN main.studies ms ON ms.study_key = ss.study_key"
         " WHERE NOT EXISTS (SELECT 1 FROM main." + table + " m WHERE m.study_id = ms.id)";
}

// Measured peaks of the source this database lacks, or measured later than its own: two measurements of one
// instance are not a conflict, and the later stands (a remeasure after a fix or an update supersedes), whichever
// file is merged into which; on a tie the held one stays, so merging the same file twice writes nothing.
constexpr const char* kCopyLaterPeaks =
    "INSERT OR REPLACE INTO main.instance_peaks (fingerprint, libtorch_version, precision, flops, method,"
    " measured_at) SELECT s.fingerprint, s.libtorch_version, s.precision, s.flops,"
    " s.method, s.measured_at FROM merge_src.instance_peaks s WHERE NOT EXISTS (SELECT 1 FROM main.instance_peaks m"
    " WHERE m.fingerprint = s.fingerprint AND m.libtorch_version = s.libtorch_version AND m.precision = s.precision"
    " AND m.measured_at >= s.measured_at)";

}  // namespace

std::vector<std::string> Database::columns_of(const std::string& table, const std::vector<std::string>& except) const {
  Statement s(db_, "SELECT name FROM pragma_table_info('" + table + "')");
  std::vector<std::string> names;
  while (s.step())
    if (std::find(except.begin(), except.end(), s.text("name")) == except.end()) names.push_back(s.text("name"));
  return names;
}

void Database::refuse_merge_conflicts() const {
  for (const char* query : kConflictQueries) {
    Statement s(db_, query);
    if (!s.step()) continue;
    throw std::runtime_error("cannot merge: " + s.text("model") + " " + s.text("backend") + " " + s.text("precision") +
                             " seq " + std::to_string(s.integer("seq_len")) + " (same study key) has a different " +
                             s.text("what") + " in each database; merge nothing, or remove one of the two");
  }
}

MergeCounts Database::merge_from(const std::string& path) {
  namespace fs = std::filesystem;
  if (fs::exists(path) && fs::exists(path_) && fs::equivalent(path, path_))
    throw std::invalid_argument("cannot merge database '" + path + "' into itself");
  { const Database source(path); }  // a tune database, migrated to this schema (throws naming it otherwise)
  AttachedSource source(db_, path);
  source.begin();
  refuse_merge_conflicts();
  MergeCounts counts;
  const auto study_columns = columns_of("studies", {"id"});
  counts.studies_added = source.run_counting(
      "INSERT INTO main.studies (" + join(study_columns) + ") SELECT " + join(study_columns) +
      " FROM merge_src.studies WHERE study_key NOT IN (SELECT study_key FROM main.studies) ORDER BY id");
  const auto trial_columns = columns_of("trials", {"id", "study_id"});
  const std::string matched = " FROM merge_src.trials t JOIN merge_src.studies ss ON ss.id = t.study_id"
                              " JOIN main.studies ms ON ms.study_key = ss.study_key";
  {
    Statement present(db_, "SELECT COUNT(*) AS n" + matched +
                               " JOIN main.trials mt ON mt.study_id = ms.id AND mt.config_key = t.config_key");
    present.step();
    counts.trials_present = static_cast<int>(present.integer("n"));
  }
  counts.trials_added = source.run_counting(
      "INSERT INTO main.trials (study_id, " + join(trial_columns) + ") SELECT ms.id, " +
      prefixed(trial_columns, "t") + matched +
      " WHERE NOT EXISTS (SELECT 1 FROM main.trials mt WHERE mt.study_id = ms.id AND mt.config_key = t.config_key)"
      " ORDER BY t.id");
  counts.bests_added = source.run_counting(copy_per_study_rows("best_configs", columns_of("best_configs", {"study_id"})));
  counts.verdicts_added =
      source.run_counting(copy_per_study_rows("screen_verdicts", columns_of("screen_verdicts", {"study_id"})));
  counts.peaks_added = source.run_counting(kCopyLaterPeaks);
  source.commit();
  return counts;
}

}  // namespace tune
