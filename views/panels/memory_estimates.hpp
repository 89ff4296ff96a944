#pragma once
// The analytic memory of the panels' configurations and the verdict against the device: the
// Memory panel draws it, the Training panel checks it before a run starts.
#include "nn/memory_model.hpp"

#include <QString>

#include <cstddef>
#include <cstdint>

namespace gsr::nn {
struct GpuStatus;
}

namespace gsr::views {

/// Memory of the device a model `hidden` wide trains on: `gpu`'s when training takes it (a
/// usable GPU whose backend takes that width, as train::choose_device("auto")), else
/// `machine_bytes`.
std::size_t training_memory_bytes(const nn::GpuStatus& gpu, std::size_t machine_bytes,
                                  std::uint32_t hidden);
/// training_memory_bytes() for this machine's GPU and RAM.
std::size_t device_memory_bytes(std::uint32_t hidden);

/// "1.50 MiB", "12 KiB", "512 B".
QString human_bytes(std::size_t bytes);

enum class MemoryVerdict { Fits, Tight, TooLarge };
/// Tight: above 80 % of the device (other programs and the OS need some); TooLarge: above it.
MemoryVerdict memory_verdict(std::size_t peak_bytes, std::size_t device_bytes);
/// A sentence for the user; empty when the peak fits with room to spare.
QString memory_warning(std::size_t peak_bytes, std::size_t device_bytes);

} // namespace gsr::views
