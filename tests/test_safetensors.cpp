// safetensors and HF weight loading: round trip of the dtypes HF saves, clear errors for malformed
// files, and a missing or mis-shaped tensor named in the error.
#include <gtest/gtest.h>

#include <cstring>

#include <torch/torch.h>

#include "models/hf_weights.h"
#include "models/model_factory.h"
#include "models/safetensors.h"
#include "models/safetensors_header.h"
#include "test_helpers.h"

using namespace tune;
using tune::testing::temp_dir;
using tune::testing::error_of;
using tune::testing::write_file;

TEST(Safetensors, RoundTripsDtypes) {
  const auto dir = temp_dir("st");
  const std::map<std::string, torch::Tensor> in{
      {"f32", torch::randn({3, 4})}, {"bf16", torch::randn({5}).to(torch::kBFloat16)},
      {"f16", torch::randn({2, 2}).to(torch::kFloat16)}, {"i64", torch::arange(7)}};
  const std::string path = (dir / "t.safetensors").string();
  write_safetensors(path, in);
  const auto out = read_safetensors(path);
  ASSERT_EQ(out.size(), in.size());
  for (const auto& [name, t] : in) {
    EXPECT_EQ(out.at(name).scalar_type(), t.scalar_type()) << name;
    EXPECT_TRUE(torch::equal(out.at(name), t)) << name;
  }
}

TEST(Safetensors, MalformedFilesAreNamed) {
  const auto dir = temp_dir("st");
  const std::string tiny = write_file(dir / "tiny.safetensors", "abc");
  EXPECT_NE(error_of([&] { read_safetensors(tiny); }).find(tiny), std::string::npos);
  std::string bad_json = std::string("\x05\0\0\0\0\0\0\0", 8) + "{nope";
  const std::string garbled = write_file(dir / "garbled.safetensors", bad_json);
  EXPECT_NE(error_of([&] { read_safetensors(garbled); }).find("not valid JSON"), std::string::npos);
}

// A shape or offset that is not a whole number (the fuzzer's float 1e29 in a shape) is a malformed file, named with
// the key and the value, not a conversion.
TEST(Safetensors, AShapeOrOffsetThatIsNotAWholeNumberIsNamed) {
  const auto header_of = [](const std::string& json) {
    std::string bytes(8, '\0');
    const uint64_t size = json.size();
    std::memcpy(bytes.data(), &size, 8);
    return bytes + json + std::string(16, '\0');
  };
  const std::string float_dim =
      header_of(R"({"a": {"dtype": "F32", "shape": [2, 1e29], "data_offsets": [0, 8]}})");
  const std::string error = error_of([&] { parse_safetensors_header(float_dim.data(), float_dim.size(), "f"); });
  EXPECT_NE(error.find("'shape' holds 1e+29, expected a whole number"), std::string::npos) << error;
  const std::string negative_offset =
      header_of(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [-8, 8]}})");
  EXPECT_NE(error_of([&] { parse_safetensors_header(negative_offset.data(), negative_offset.size(), "f"); })
                .find("'data_offsets' holds -8, expected a whole number of at least 0"),
            std::string::npos);
  const std::string good = header_of(R"({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}})");
  EXPECT_NO_THROW(parse_safetensors_header(good.data(), good.size(), "f"));
}

TEST(HfWeights, MissingAndMisShapedTensorsAreNamed) {
  const auto dir = temp_dir("st");
  const ModelConfig c = resolve_model("bert-tiny");
  auto model = build_model(c, 0);
  std::map<std::string, torch::Tensor> state;
  for (const auto& p : model.module->named_parameters()) state[p.key()] = p.value().detach().clone();
  state.erase("bert.encoder.layer.1.output.dense.bias");
  write_safetensors((dir / "model.safetensors").string(), state);
  EXPECT_NE(error_of([&] { load_hf_weights(*model.module, dir.string()); })
                .find("missing tensor 'bert.encoder.layer.1.output.dense.bias'"),
            std::string::npos);
  state["bert.encoder.layer.1.output.dense.bias"] = torch::zeros({3});
  write_safetensors((dir / "model.safetensors").string(), state);
  const std::string msg = error_of([&] { load_hf_weights(*model.module, dir.string()); });
  EXPECT_NE(msg.find("'bert.encoder.layer.1.output.dense.bias' has shape [3], expected [64]"), std::string::npos) << msg;
}

TEST(HfWeights, LoadedValuesLandInParameters) {
  const auto dir = temp_dir("st");
  const ModelConfig c = resolve_model("bert-tiny");
  auto source = build_model(c, 1), target = build_model(c, 2);
  std::map<std::string, torch::Tensor> state;
  for (const auto& p : source.module->named_parameters()) state[p.key()] = p.value().detach().to(torch::kBFloat16);
  state["bert.embeddings.position_ids"] = torch::arange(128);  // an HF buffer: skipped
  write_safetensors((dir / "model.safetensors").string(), state);
  const auto report = load_hf_weights(*target.module, dir.string(), target.ignored_checkpoint_suffixes);
  EXPECT_EQ(report.loaded, static_cast<int>(state.size()) - 1);
  EXPECT_EQ(report.skipped, std::vector<std::string>{"bert.embeddings.position_ids"});
  const auto w = target.module->named_parameters()["cls.predictions.transform.dense.weight"];
  EXPECT_TRUE(torch::equal(w, state["cls.predictions.transform.dense.weight"].to(torch::kFloat32)));
  EXPECT_TRUE(w.requires_grad());
}
