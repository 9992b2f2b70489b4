//===- FileNames.h - File names for tensors written by `hetc run` -*- C++ -*-=//
#ifndef HETC_RUNTIME_RUN_FILENAMES_H
#define HETC_RUNTIME_RUN_FILENAMES_H

#include <set>
#include <string>

namespace hetc::run {

/// Turns a tensor name into a safe file name stem: characters other than
/// letters, digits, '.', '_' and '-' become '_', and a leading '.' becomes
/// '_' (no hidden files, no "..").
std::string sanitizeFileName(const std::string &name);

/// Like sanitizeFileName, but adds "_2", "_3", ... to a stem already in
/// `taken`, then records the result there.
std::string uniqueFileName(const std::string &name,
                           std::set<std::string> &taken);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_FILENAMES_H
