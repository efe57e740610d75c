// Entry points of tune's subcommands; main.cpp picks one by the first argument.
// Each parses its own flags (Boost.Program_options) and returns the process exit code.
#pragma once

namespace tune::cli {

int run_tune(int argc, char** argv);      // tune --model NAME ...: the search
int run_models(int argc, char** argv);    // tune models
int run_instance(int argc, char** argv);  // tune instance
int run_table(int argc, char** argv);     // tune table
int run_export(int argc, char** argv);    // tune export --json: one database as a JSON document
int run_regress(int argc, char** argv);   // tune regress
int run_tuners(int argc, char** argv);   // tune tuners: the search strategies
int run_observers(int argc, char** argv);  // tune observers: the tools --observers attaches
int run_trial(int argc, char** argv);     // tune trial --spec FILE: one trial, in this process
int run_merge(int argc, char** argv);     // tune merge INTO.db A.db ...: databases merged into one
int run_sweep(int argc, char** argv);     // tune sweep FILE: many studies through an executor (local, Slurm)

}  // namespace tune::cli
