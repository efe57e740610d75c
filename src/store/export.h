// `tune export`: one database as a versioned JSON document (schema "tune-export"): every study with its key,
// its best config and stop reasons, and its trials (spec.json and result.json as stored), and the measured peaks,
// for scripts to read.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "store/database.h"

namespace tune {

// 1: studies with id, key fields (hardware as its parts and fingerprint), best (or null) and trials; 2: the best's
// search budget, rate edge and horizon, and each study's screen verdict (or null); 3: the store's measured peaks
// ("instance_peaks": fingerprint, libtorch, precision, FLOP/s, method, when), which a table's MFU is taken against.
constexpr int kExportSchemaVersion = 3;

// {"schema": "tune-export", "schema_version": 3, "database": path, "studies": [...], "instance_peaks": [...]},
// studies by id, trials by id, peaks by key.
nlohmann::json export_database(const Database& db, const std::string& path);

}  // namespace tune
