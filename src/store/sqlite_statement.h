// A prepared SQLite statement that finalizes itself: the one way the store's files bind values and read columns.
// Internal to src/store (database.cpp, merge.cpp); throws std::runtime_error with SQLite's message.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "util/check.h"

namespace tune {

// A prepared statement that finalizes itself; binds by 1-based index, reads columns by name.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("SQLite prepare failed: ") + sqlite3_errmsg(db) + " in: " + sql);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& bind(int i, const std::string& v) { return check(sqlite3_bind_text(stmt_, i, v.c_str(), -1, SQLITE_TRANSIENT)); }
  Statement& bind(int i, int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
  Statement& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Statement& bind(int i, double v) { return check(sqlite3_bind_double(stmt_, i, v)); }
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("SQLite step failed: ") + sqlite3_errmsg(db_));
  }
  int64_t integer(const char* column) const { return sqlite3_column_int64(stmt_, index(column)); }
  double real(const char* column) const { return sqlite3_column_double(stmt_, index(column)); }
  std::string text(const char* column) const {
    const auto* t = sqlite3_column_text(stmt_, index(column));
    return t ? reinterpret_cast<const char*>(t) : "";
  }

 private:
  int index(const char* column) const {
    for (int i = 0; i < sqlite3_column_count(stmt_); ++i)
      if (std::strcmp(sqlite3_column_name(stmt_, i), column) == 0) return i;
    TUNE_CHECK(false, column);  // a query reads a column it did not select
    return 0;
  }
  Statement& check(int rc) {
    if (rc != SQLITE_OK) throw std::runtime_error(std::string("SQLite bind failed: ") + sqlite3_errmsg(db_));
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace tune
