// Which batch a study's row shows and the confirmation compares, over every throughput trial the study stores: its
// stored best, unless the study's own stored trials overrule it by the batch rule (tuners/batch_pick.h). That
// happens to a best stored before the batch stage picked over every stored trial, when the budget cut the ramp
// before it reached the size the screen had already found faster. One place, read by the confirmation (engine)
// and the table (report).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"
#include "tuners/candidate.h"

namespace tune {

// TrialSpec::repeat of the trial the confirmation's same-batch rounds run first, at a size the side's own search never
// ran (the search's own trials: 0; the rounds: 1, 2, ...). Not one of the search's own, so no pick here takes it (a
// rerun's batch stage would otherwise search rates at a size the first search never chose); the table's batch curve
// shows it where no trial of the search's own ran at its size, and a best moves there only by the rounds' rule.
constexpr int kSameBatchFirstRepeat = -2;

// When a throughput trial the study stores (the search's own, not the confirmation's repeats, nor a superseded older
// measurement of a config: a pick over repeated measurements would chase the lucky one) ran faster than the
// chosen batch's samples/s beyond the noise, the trial the batch rule picks over all of them; nothing when the choice
// stands.
std::optional<ToldTrial> overruling_stored_trial(const std::vector<StoredTrial>& trials, double chosen_samples_per_second);
// The same for a stored best; a batch a failure limited (out of memory, or another) stands as the ramp chose it (a
// memory margin may have kept a faster size out).
std::optional<ToldTrial> overruling_stored_trial(const std::vector<StoredTrial>& trials, const BestConfig& best);

// `best` with the speed figures of `trial` (batch, samples/s, step time and its CI, overhead, memory, FLOPs; the MFU
// scaled to its FLOP/s against the same peak), its learning rate and stop reasons kept.
BestConfig with_speed_of(const BestConfig& best, const ToldTrial& trial);

// Whether a best's batch ramp stopped below `other_batch` for want of budget or of trials (BatchLimit budget,
// trials) without trying that size or a larger one (`sizes_tried`: its throughput trials' batches, any status).
// Compared with a config at `other_batch`, the gap would credit the other side with a batch size this one never
// got to run; a ramp that ended on its own (slower, out of memory, failed, the range's end) stands.
bool ramp_cut_below(const BestConfig& best, const std::vector<int>& sizes_tried, int other_batch);
// "eager's batch ramp stopped at 2 (budget), below jit's 32": such a cut, said (budget or "max trials").
std::string describe_ramp_cut(const std::string& backend, const BestConfig& best, const std::string& other_backend,
                              int other_batch);
// The sizes a study's own throughput trials tried (the search's, not the confirmation's repeats), any status.
std::vector<int> throughput_sizes_tried(const std::vector<StoredTrial>& trials);

}  // namespace tune
