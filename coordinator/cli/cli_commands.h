// Extra `fleetsweep` subcommands that read a finished (or running) sweep: report, export, watch.
// Register() adds them to the CLI; Run() executes the one selected and returns the exit code.
#pragma once

#include <memory>

namespace CLI {
class App;
}

namespace fleetsweep {

class CliCommands {
 public:
  CliCommands();
  ~CliCommands();
  void Register(CLI::App* app);
  bool Selected() const;
  int Run();

  struct State;  // flags of the subcommands (cli_commands.cc)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace fleetsweep
