// The bucketed, overlapped all-reduce of data-parallel training (compile/gradient_reducer.h), over a c10d process
// group: the same collectives torch.distributed and DDP's Reducer use, called from C++.
#include "compile/gradient_reducer.h"

#include <ATen/cuda/CUDAEvent.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>

#include <chrono>
#include <optional>

namespace tune {
namespace {

// How long synchronize held the step up. On a CPU the host waits for the all-reduce; on CUDA the host does not
// (NCCL's wait only makes the compute stream wait for the communication stream), so two events on the compute
// stream time what the stream sat waiting after backward's last kernel, and the host waits for the second.
class ExposedTimer {
 public:
  explicit ExposedTimer(const torch::Device& device) : start_(std::chrono::steady_clock::now()) {
    if (!device.is_cuda()) return;
    events_.emplace(at::cuda::CUDAEvent(cudaEventDefault), at::cuda::CUDAEvent(cudaEventDefault));
    events_->first.record();
  }
  double seconds() {
    if (!events_) return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    events_->second.record();
    events_->second.synchronize();
    return events_->first.elapsed_time(events_->second) / 1000.0;
  }

 private:
  std::chrono::steady_clock::time_point start_;
  std::optional<std::pair<at::cuda::CUDAEvent, at::cuda::CUDAEvent>> events_;
};

}  // namespace

// A bucket: a flat buffer holding its parameters' gradients end to end, and which of them arrived this step.
struct GradientReducer::Bucket {
  std::vector<size_t> parameters;  // indices into parameters_
  std::vector<int64_t> offsets;    // each one's first element in `flat`
  torch::Tensor flat;
  std::vector<bool> arrived;
  size_t pending = 0;
  c10::intrusive_ptr<c10d::Work> work;
};

GradientReducer::GradientReducer(std::vector<torch::Tensor> parameters, c10::intrusive_ptr<c10d::Backend> group,
                                 int64_t bucket_bytes)
    : parameters_(std::move(parameters)), group_(std::move(group)) {
  auto bucket = std::make_unique<Bucket>();
  int64_t bytes = 0;
  const auto close = [&] {
    int64_t numel = 0;
    for (size_t i : bucket->parameters) numel += parameters_[i].numel();
    bucket->flat = torch::zeros({numel}, parameters_[bucket->parameters.front()].options());
    bucket->arrived.assign(bucket->parameters.size(), false);
    buckets_.push_back(std::move(bucket));
    bucket = std::make_unique<Bucket>();
    bytes = 0;
  };
  for (size_t i = parameters_.size(); i-- > 0;) {  // reverse registration: the output layers' gradients come first
    const torch::Tensor& p = parameters_[i];
    if (!p.requires_grad()) continue;
    int64_t offset = 0;
    for (size_t j : bucket->parameters) offset += parameters_[j].numel();
    const size_t slot = bucket->parameters.size();
    bucket->parameters.push_back(i);
    bucket->offsets.push_back(offset);
    const size_t index = buckets_.size();
    torch::Tensor(p).register_hook([this, index, slot](const torch::Tensor& grad) { on_gradient(index, slot, grad); });
    bytes += p.numel() * p.element_size();
    if (bytes >= bucket_bytes) close();
  }
  if (!bucket->parameters.empty()) close();
}

GradientReducer::~GradientReducer() = default;

void GradientReducer::on_gradient(size_t index, size_t slot, const torch::Tensor& grad) {
  Bucket& b = *buckets_[index];
  const torch::Tensor& p = parameters_[b.parameters[slot]];
  b.flat.narrow(0, b.offsets[slot], p.numel()).copy_(grad.reshape(-1));
  if (!b.arrived[slot]) {
    b.arrived[slot] = true;
    if (++b.pending == b.parameters.size()) launch(b);
  }
}

void GradientReducer::launch(Bucket& b) {
  std::vector<at::Tensor> tensors{b.flat};
  b.work = group_->allreduce(tensors);
}

void GradientReducer::synchronize() {
  ExposedTimer timer(parameters_.front().device());
  torch::NoGradGuard no_grad;
  const double ranks = static_cast<double>(group_->getSize());
  for (auto& bucket : buckets_) {
    Bucket& b = *bucket;
    if (!b.work) {
      for (size_t slot = 0; slot < b.parameters.size(); ++slot)
        if (!b.arrived[slot]) b.flat.narrow(0, b.offsets[slot], parameters_[b.parameters[slot]].numel()).zero_();
      launch(b);
    }
    b.work->wait();
    b.flat.div_(ranks);
    for (size_t slot = 0; slot < b.parameters.size(); ++slot) {
      torch::Tensor p = parameters_[b.parameters[slot]];
      const torch::Tensor mean = b.flat.narrow(0, b.offsets[slot], p.numel()).view_as(p);
      if (p.grad().defined()) p.mutable_grad().copy_(mean);
      else p.mutable_grad() = mean.clone();
    }
    b.work.reset();
    b.pending = 0;
    std::fill(b.arrived.begin(), b.arrived.end(), false);
  }
  exposed_seconds_ = timer.seconds();
}

void GradientReducer::broadcast_parameters() {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> tensors;
  for (const auto& p : parameters_) tensors.push_back(p.detach());
  for (auto& t : tensors) {
    std::vector<at::Tensor> one{t};
    group_->broadcast(one)->wait();
  }
}

}  // namespace tune
