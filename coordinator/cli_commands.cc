#include "coordinator/cli_commands.h"

#include "CLI/CLI.hpp"

namespace fleetsweep {

struct CliCommands::State {};

CliCommands::CliCommands() : state_(std::make_unique<State>()) {}
CliCommands::~CliCommands() = default;
void CliCommands::Register(CLI::App* app) {}
bool CliCommands::Selected() const { return false; }
int CliCommands::Run() { return 2; }

}  // namespace fleetsweep
