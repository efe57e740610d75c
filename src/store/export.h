// `tune export`: one database as a versioned JSON document (schema "tune-export"): every study with its key,
// its best config and stop reasons, and its trials (spec.json and result.json as stored), for scripts to read.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "store/database.h"

namespace tune {

// 1: studies with id, key fields (hardware as its parts and fingerprint), best (or null) and trials; 2: the best's
// search budget, rate edge and horizon, and each study's screen verdict (or null).
constexpr int kExportSchemaVersion = 2;

// {"schema": "tune-export", "schema_version": 1, "database": path, "studies": [...]}, studies by id, trials by id.
nlohmann::json export_database(const Database& db, const std::string& path);

}  // namespace tune
