// The observers as a libtorch user attaches them: the kineto profiler (torch/csrc/autograd/profiler_kineto.h, what
// torch.profiler drives from Python), autograd's anomaly mode, a debugger's statistics through parameter hooks and
// the models' activation tap, and a per-step loss log.
#include "trial/step_observers.h"

#include <torch/csrc/autograd/anomaly_mode.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/jit/frontend/tracer.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "models/activation_tap.h"
#include "trial/observer_registry.h"
#include "util/check.h"
#include "util/table_format.h"

namespace tune {

TensorStats tensor_stats(const torch::Tensor& t) {
  torch::NoGradGuard no_grad;
  const torch::Tensor f = t.detach().to(torch::kFloat);
  const torch::Tensor packed =
      torch::stack({f.norm(), f.min(), f.max(), f.mean(), f.isnan().sum().to(torch::kFloat),
                    f.isinf().sum().to(torch::kFloat)})
          .to(torch::kCPU, torch::kDouble);  // one copy to the host: the sync a debugger's collection costs
  const auto v = packed.accessor<double, 1>();
  return {v[0], v[1], v[2], v[3], static_cast<int64_t>(v[4]), static_cast<int64_t>(v[5])};
}

namespace {

namespace kineto = torch::autograd::profiler;
namespace profiler_impl = torch::profiler::impl;

std::set<profiler_impl::ActivityType> activities_for(const std::string& device) {
  std::set<profiler_impl::ActivityType> activities{profiler_impl::ActivityType::CPU};
  if (device.rfind("cuda", 0) == 0) activities.insert(profiler_impl::ActivityType::CUDA);
  return activities;
}

// The profiler on every step: on for each of the step's blocks (the other member's blocks run without it), its
// events counted; the last block's trace written at the end (the whole run's would only be bigger).
class ProfilerObserver : public StepObserver {
 public:
  ProfilerObserver(const ObserverPlace& place, bool detail)
      : place_(place),
        config_(profiler_impl::ProfilerState::KINETO, /*report_input_shapes=*/detail, /*profile_memory=*/false,
                /*with_stack=*/detail),
        activities_(activities_for(place.device)) {}
  void begin_block() override {
    kineto::prepareProfiler(config_, activities_);
    kineto::enableProfiler(config_, activities_);
  }
  void end_block() override {
    last_ = kineto::disableProfiler();
    events_ += last_ ? last_->events().size() : 0;
  }
  void after_step(int, const torch::Tensor&) override { ++steps_; }
  std::string finish() override {
    const std::string trace = (std::filesystem::path(place_.out_dir) / "trace.json").string();
    if (last_) last_->save(trace);
    return strf("profiled %d steps, %zu events%s; the last block's trace in %s", steps_, events_,
                config_.report_input_shapes ? " with input shapes and stacks" : "", trace.c_str());
  }

 private:
  ObserverPlace place_;
  profiler_impl::ProfilerConfig config_;
  std::set<profiler_impl::ActivityType> activities_;
  std::unique_ptr<kineto::ProfilerResult> last_;
  size_t events_ = 0;
  int steps_ = 0;
};

// torch.profiler.schedule(wait=1, warmup=1, active=3): a cycle of 5 steps counted from each block's start (an
// observer trial's blocks are 5 steps: one cycle each). Warm-up turns the profiler on, the active steps' end turns
// it off and writes their trace, timed, as tensorboard_trace_handler does in on_trace_ready.
class ScheduledProfilerObserver : public StepObserver {
 public:
  static constexpr int kWait = 1, kWarmup = 1, kActive = 3, kCycle = kWait + kWarmup + kActive;
  explicit ScheduledProfilerObserver(const ObserverPlace& place)
      : place_(place), config_(profiler_impl::ProfilerState::KINETO), activities_(activities_for(place.device)) {}
  void begin_block() override { in_block_ = 0; }
  void end_block() override {
    if (on_) kineto::disableProfiler();  // a window the block cut short: dropped, as a schedule drops it
    on_ = false;
  }
  void before_step(int) override {
    if (in_block_ % kCycle != kWait) return;
    kineto::prepareProfiler(config_, activities_);
    kineto::enableProfiler(config_, activities_);
    on_ = true;
  }
  void after_step(int, const torch::Tensor&) override {
    if (++in_block_ % kCycle != 0 || !on_) return;
    const auto result = kineto::disableProfiler();
    on_ = false;
    result->save((std::filesystem::path(place_.out_dir) / strf("trace-%d.json", traces_ % 4)).string());
    ++traces_;
  }
  std::string finish() override {
    return strf("schedule wait %d, warm-up %d, active %d: %d traces written to %s (the last 4 kept)", kWait, kWarmup,
                kActive, traces_, place_.out_dir.c_str());
  }

 private:
  ObserverPlace place_;
  profiler_impl::ProfilerConfig config_;
  std::set<profiler_impl::ActivityType> activities_;
  int in_block_ = 0, traces_ = 0;
  bool on_ = false;
};

// Anomaly mode is process-wide: on for this step's blocks only.
class AnomalyObserver : public StepObserver {
 public:
  void begin_block() override { torch::autograd::AnomalyMode::set_enabled(true); }
  void end_block() override { torch::autograd::AnomalyMode::set_enabled(false); }
  void after_step(int, const torch::Tensor&) override { ++steps_; }
  std::string finish() override { return strf("anomaly detection on for %d steps", steps_); }

 private:
  int steps_ = 0;
};

class LossLogObserver : public StepObserver {
 public:
  explicit LossLogObserver(const ObserverPlace& place)
      : path_((std::filesystem::path(place.out_dir) / "loss.log").string()), log_(path_) {}
  void after_step(int step, const torch::Tensor& loss) override {
    log_ << "step " << step + 1 << " loss " << loss.item<double>() << '\n';  // .item(): the host sync it costs
    ++lines_;
  }
  std::string finish() override {
    log_.flush();
    return strf("logged %d losses to %s", lines_, path_.c_str());
  }

 private:
  std::string path_;
  std::ofstream log_;
  int lines_ = 0;
};

}  // namespace

namespace {

// A training debugger's collection (smdebug, tensorboard histograms): every `interval` steps, the statistics of each
// layer's output (the models' activation tap) and each parameter's gradient (a tensor hook, as backward makes it),
// one JSON line each, written to disk after the step. Hooks and tap share the state, which outlives the observer
// (a parameter keeps its hook as long as it lives).
class TensorStatsObserver : public StepObserver {
 public:
  TensorStatsObserver(const ObserverPlace& place, int interval, const TrainableModel& model)
      : state_(std::make_shared<State>()),
        interval_(interval),
        path_((std::filesystem::path(place.out_dir) / "tensor_stats.jsonl").string()),
        out_(path_) {
    for (const auto& item : model.module->named_parameters()) {
      torch::Tensor parameter = item.value();
      parameter.register_hook([state = state_, name = item.key()](const torch::Tensor& grad) {
        if (state->collecting) state->rows.push_back(row(state->step, "gradient", name, grad));
      });
    }
  }
  void begin_block() override {
    tap_ = std::make_unique<ActivationTapGuard>([state = state_](const std::string& layer, const torch::Tensor& out) {
      if (!state->collecting) return;
      if (torch::jit::tracer::isTracing()) {  // a value of the trace, not of a step: the graph keeps no tap
        ++state->traced;
        return;
      }
      state->rows.push_back(row(state->step, "activation", layer, out));
    });
  }
  void end_block() override { tap_.reset(); }
  void before_step(int step) override {
    state_->step = step;
    state_->collecting = step % interval_ == 0;
  }
  void after_step(int, const torch::Tensor&) override {
    if (!state_->collecting) return;
    ++collected_steps_;
    for (const auto& r : state_->rows) {
      (r.at("kind") == "activation" ? activations_ : gradients_) += 1;
      out_ << r.dump() << '\n';
    }
    out_.flush();
    state_->rows.clear();
    state_->collecting = false;
  }
  std::string finish() override {
    return strf("every %d steps: %d steps collected, %lld layer outputs and %lld gradients, to %s", interval_,
                collected_steps_, activations_, gradients_, path_.c_str());
  }
  // A step that collected gradients but no layer output runs a graph without the models' tap: jit's traced graph
  // (the tap ran, if at all, only while it was traced).
  std::string caveat() const override {
    if (collected_steps_ == 0 || activations_ > 0) return "";
    return "gradients only: no layer output was collected, the step runs a traced graph with no call to the layer "
           "tap" + std::string(state_->traced > 0 ? " (it ran only while the step was traced)" : "");
  }

 private:
  struct State {
    bool collecting = false;
    int step = 0;
    int traced = 0;
    std::vector<nlohmann::json> rows;
  };
  static nlohmann::json row(int step, const char* kind, const std::string& name, const torch::Tensor& t) {
    const TensorStats s = tensor_stats(t);
    return {{"step", step + 1}, {"kind", kind}, {"name", name}, {"norm", s.norm}, {"min", s.min},
            {"max", s.max}, {"mean", s.mean}, {"nan", s.nan_count}, {"inf", s.inf_count}};
  }
  std::shared_ptr<State> state_;
  int interval_;
  std::string path_;
  std::ofstream out_;
  std::unique_ptr<ActivationTapGuard> tap_;
  int collected_steps_ = 0;
  long long activations_ = 0, gradients_ = 0;
};

// The fault matrix's observer that throws (TestHooks::observer_fails_at_step): the tool's own failure mid-run.
class FailingObserver : public StepObserver {
 public:
  FailingObserver(std::unique_ptr<StepObserver> inner, int fails_at_step)
      : inner_(std::move(inner)), fails_at_step_(fails_at_step) {}
  void begin_block() override { inner_->begin_block(); }
  void end_block() override { inner_->end_block(); }
  void before_step(int step) override {
    if (step + 1 == fails_at_step_)
      throw std::runtime_error(strf("observer failed at step %d (TEST ONLY: observer_fails_at_step)", step + 1));
    inner_->before_step(step);
  }
  void after_step(int step, const torch::Tensor& loss) override { inner_->after_step(step, loss); }
  std::string finish() override { return inner_->finish(); }
  std::string caveat() const override { return inner_->caveat(); }

 private:
  std::unique_ptr<StepObserver> inner_;
  int fails_at_step_;
};

std::unique_ptr<StepObserver> observer_for(const ObserverLabel& label, const TrainableModel& model,
                                           const ObserverPlace& place) {
  if (label.name == "profiler") return std::make_unique<ProfilerObserver>(place, false);
  if (label.name == "profiler-detail") return std::make_unique<ProfilerObserver>(place, true);
  if (label.name == "profiler-schedule") return std::make_unique<ScheduledProfilerObserver>(place);
  if (label.name == "anomaly") return std::make_unique<AnomalyObserver>();
  if (label.name == "tensor-stats") return std::make_unique<TensorStatsObserver>(place, label.interval, model);
  if (label.name == "loss-log") return std::make_unique<LossLogObserver>(place);
  TUNE_CHECK(false, ("observer '" + label.name + "' is registered but has no libtorch class").c_str());
  return nullptr;
}

}  // namespace

std::unique_ptr<StepObserver> make_trial_observer(const TrialSpec& spec, const TrainableModel& model,
                                                  const std::string& work_dir) {
  if (spec.step.observer.empty()) return nullptr;
  std::string folder = spec.step.observer;
  std::replace(folder.begin(), folder.end(), ':', '-');
  const auto dir = std::filesystem::path(work_dir.empty() ? "." : work_dir) / "observers" / folder;
  return make_step_observer(spec.step.observer, model,
                            {dir.string(), spec.step.device, spec.test.observer_fails_at_step});
}

std::unique_ptr<StepObserver> make_step_observer(const std::string& label, const TrainableModel& model,
                                                 const ObserverPlace& place) {
  const ObserverLabel parsed = parse_observer(label);
  std::filesystem::create_directories(place.out_dir);
  auto observer = observer_for(parsed, model, place);
  if (place.fails_at_step > 0) observer = std::make_unique<FailingObserver>(std::move(observer), place.fails_at_step);
  return observer;
}

}  // namespace tune
