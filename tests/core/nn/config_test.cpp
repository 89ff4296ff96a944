// Impossible configurations are refused with the flag at fault and what is allowed; states of
// another architecture are refused; graphs are checked.
#include "nn/cpu_backend.hpp"
#include "nn/model.hpp"
#include "nn_test_support.hpp"
#include "util/diagnostics.hpp"
#include "util/machine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

using namespace gsr::nn;
using namespace gsr::nn::testing;

namespace {

std::string error_of(const ModelConfig& c)
{
    try {
        validate(c);
    } catch (const gsr::Error& e) {
        return e.message();
    }
    return {};
}

ModelConfig gsr_config()
{
    ModelConfig c;
    c.kind = ModelKind::Gsr;
    c.layers = 4;
    c.hidden = 16;
    c.groups = 4;
    c.topk = 2;
    return c;
}

} // namespace

TEST(ModelConfig, ValidConfigurationPasses) { EXPECT_EQ(error_of(gsr_config()), ""); }

TEST(ModelConfig, HiddenNotDivisibleByGroupsNamesGroups)
{
    ModelConfig c = gsr_config();
    c.hidden = 18;
    const std::string e = error_of(c);
    EXPECT_NE(e.find("--groups"), std::string::npos) << e;
    EXPECT_NE(e.find("not divisible"), std::string::npos) << e;
}

TEST(ModelConfig, GroupsOneValueWideAreRefused)
{
    // A LayerNorm over one value is its beta whatever the input: every branch a constant, a
    // "deep" model with no message passing, accepted without a word.
    ModelConfig c = gsr_config();
    c.hidden = 8;
    c.groups = 8;
    c.topk = 1;
    std::string e = error_of(c);
    EXPECT_NE(e.find("--groups: groups one value wide"), std::string::npos) << e;
    EXPECT_NE(e.find("use at most hidden/2 = 4 groups"), std::string::npos) << e;
    c.kind = ModelKind::Rev;
    EXPECT_NE(error_of(c).find("--groups"), std::string::npos);
    c.groups = 4;
    EXPECT_EQ(error_of(c), "");
    c.kind = ModelKind::Res;
    c.hidden = 1;
    e = error_of(c);
    EXPECT_NE(e.find("--hidden: res needs at least 2"), std::string::npos) << e;
}

TEST(ModelConfig, TopkAboveGroupWidthNamesTopk)
{
    ModelConfig c = gsr_config();
    c.topk = 5; // d = 4
    const std::string e = error_of(c);
    EXPECT_NE(e.find("--topk"), std::string::npos) << e;
    EXPECT_NE(e.find("1 to"), std::string::npos) << e;
    c.topk = 0;
    EXPECT_NE(error_of(c).find("--topk"), std::string::npos);
}

TEST(ModelConfig, DefaultTopkIsEightOrHalfANarrowerGroup)
{
    EXPECT_EQ(default_topk(64, 4), 8u);  // the defaults: ModelConfig's k
    EXPECT_EQ(default_topk(128, 2), 8u); // wider groups keep 8
    EXPECT_EQ(default_topk(16, 4), 2u);  // d = 4
    EXPECT_EQ(default_topk(16, 2), 4u);  // d = 8
    EXPECT_EQ(default_topk(3, 2), 1u);   // d = 1: at least one entry
    for (std::uint32_t hidden : {4u, 8u, 12u, 16u, 24u, 40u, 64u}) {
        ModelConfig c = gsr_config();
        c.hidden = hidden;
        c.groups = 2;
        c.topk = default_topk(hidden, 2);
        EXPECT_EQ(error_of(c), "") << "hidden " << hidden;
    }
}

TEST(ModelConfig, ZeroLayersNamesLayers)
{
    ModelConfig c = gsr_config();
    c.layers = 0;
    EXPECT_NE(error_of(c).find("--layers"), std::string::npos);
}

TEST(ModelConfig, OneGroupIsNotReversible)
{
    ModelConfig c = gsr_config();
    c.kind = ModelKind::Rev;
    c.groups = 1;
    EXPECT_NE(error_of(c).find("at least 2 groups"), std::string::npos);
    c.kind = ModelKind::Sage; // groups do not apply to shallow models
    EXPECT_EQ(error_of(c), "");
}

TEST(ModelConfig, DropoutOutOfRangeNamesDropout)
{
    ModelConfig c = gsr_config();
    c.dropout = 1.0;
    EXPECT_NE(error_of(c).find("--dropout"), std::string::npos);
}

TEST(ModelConfig, ModelNamesParseAndUnknownNamesAreRefused)
{
    for (auto k : {ModelKind::Gcn, ModelKind::Sage, ModelKind::Res, ModelKind::Rev,
                   ModelKind::Gsr})
        EXPECT_EQ(parse_model_kind(model_kind_name(k)), k);
    try {
        parse_model_kind("transformer");
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("--model"), std::string::npos);
        EXPECT_NE(e.message().find("gcn, sage, res, rev, gsr"), std::string::npos);
    }
}

TEST(Model, ConstructorRefusesImpossibleConfig)
{
    ModelConfig c = gsr_config();
    c.hidden = 18;
    EXPECT_THROW(Model(c, 3), gsr::Error);
}

TEST(Model, StateOfAnotherArchitectureIsRefused)
{
    Model a(gsr_config(), 3);
    ModelConfig other = gsr_config();
    other.layers = 5;
    Model b(other, 3);
    try {
        b.load_state(a.save_state());
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("not this model"), std::string::npos) << e.message();
    }
    std::vector<std::uint8_t> junk(10, 7);
    EXPECT_THROW(b.load_state(junk), gsr::Error);
}

TEST(Model, ADamagedStateIsRefusedWhole)
{
    // A NaN parameter loaded and trained on as a dead model that "finished"; a negative Adam
    // second moment ended the run as "diverged". Both are refused, and nothing is loaded.
    Model a(gsr_config(), 3);
    const std::vector<std::uint8_t> good = a.save_state();
    constexpr std::size_t kHeader = 72; // magic, 8 x 32-bit, 4 x 64-bit
    ASSERT_EQ((good.size() - kHeader) % (3 * sizeof(double)), 0u);
    const std::size_t count = (good.size() - kHeader) / (3 * sizeof(double));
    auto with = [&](std::size_t index, double value) {
        std::vector<std::uint8_t> s = good;
        std::memcpy(s.data() + kHeader + index * sizeof(double), &value, sizeof value);
        return s;
    };
    auto message = [&](const std::vector<std::uint8_t>& s) {
        Model b(gsr_config(), 3);
        try {
            b.load_state(s);
        } catch (const gsr::Error& e) {
            EXPECT_EQ(b.save_state(), Model(gsr_config(), 3).save_state()); // untouched
            return e.message();
        }
        return std::string("loaded");
    };
    EXPECT_EQ(message(with(5, std::nan(""))), "model state: damaged: parameter 5 is nan");
    EXPECT_EQ(message(with(count + 1, HUGE_VAL)),
              "model state: damaged: Adam first moment 1 is inf");
    EXPECT_EQ(message(with(2 * count, -1.0)),
              "model state: damaged: Adam second moment 0 is -1.000000");
    EXPECT_EQ(message(good), "loaded");
}

TEST(Model, GraphAndTargetsAreChecked)
{
    Model m(gsr_config(), 3);
    GraphInput g = random_graph(20, 4, 1); // 4 features, model wants 3
    EXPECT_THROW(m.bind_graph(g), gsr::Error);
    g = random_graph(20, 3, 1);
    g.fanin_targets[0] = 99;
    EXPECT_THROW(m.bind_graph(g), gsr::Error);
    g = random_graph(20, 3, 1);
    std::vector<float> targets(19, 0.0f); // one per node expected
    const std::vector<std::uint32_t> nodes = {1};
    EXPECT_THROW(m.train_step(nodes, targets, LossKind::MeanSquaredError), gsr::Error); // unbound
    m.bind_graph(g);
    EXPECT_THROW(m.train_step(nodes, targets, LossKind::MeanSquaredError), gsr::Error);
    targets.resize(20);
    const std::vector<std::uint32_t> outside = {20};
    EXPECT_THROW(m.train_step(outside, targets, LossKind::MeanSquaredError), gsr::Error);
    EXPECT_NO_THROW(m.train_step(nodes, targets, LossKind::MeanSquaredError));
}

TEST(Model, RebindingToAnotherGraphKeepsTheParameters)
{
    Model m(gsr_config(), 3);
    const GraphInput small = random_graph(20, 3, 1), large = random_graph(500, 3, 2);
    m.bind_graph(small);
    const auto before = m.parameters();
    m.bind_graph(large);
    EXPECT_EQ(m.parameters(), before);
    EXPECT_EQ(m.predict().size(), 500u);
    m.bind_graph(small);
    EXPECT_EQ(m.predict().size(), 20u);
}

TEST(Model, MaskToNodeList)
{
    EXPECT_EQ(nodes_from_mask({0, 1, 1, 0, 1}), (std::vector<std::uint32_t>{1, 2, 4}));
}

TEST(CpuBackend, AnArenaPastTheMachinesMemoryIsAPlainError)
{
    // It was std::bad_alloc ("error: out of memory") or, overcommitted, a process killed as
    // the pages were touched.
    const std::uint64_t machine = gsr::physical_memory_bytes();
    ASSERT_GT(machine, 0u);
    auto backend = make_cpu_backend(Precision::Float32, 1);
    try {
        backend->reserve(std::size_t(machine) + (std::size_t(1) << 30));
        FAIL() << "an arena past the machine's memory was reserved";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("out of memory: this model needs"), std::string::npos)
            << e.message();
        EXPECT_NE(e.message().find("Try --model gsr"), std::string::npos) << e.message();
    }
}
