// Where tune finds its own files (tested_models/, configs/) and where it writes (database, trial folders).
// TUNE_HOME overrides the source tree the binary was built from.
#pragma once
#include <string>

namespace tune {

// The project root holding tested_models/ and configs/: $TUNE_HOME, else the build's source dir.
std::string tune_home();
std::string tested_models_dir();
std::string configs_dir();

// The running executable (/proc/self/exe), used to start trial processes.
std::string self_executable();

// Default database: $TUNE_DB, else $XDG_DATA_HOME/tune/tune.db when XDG_DATA_HOME is set, else ./tune.db.
std::string default_database_path();

// Folder for per-trial folders beside a database: tune.db -> tune-runs/.
std::string runs_dir_for_database(const std::string& db_path);

// `text` as one file-name part: '/' and ' ' become '_' (a model named by its folder, a profile with spaces).
std::string file_name_part(std::string text);

}  // namespace tune
