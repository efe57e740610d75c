// Shared command-line helpers: parse with a help flag, and print help in one consistent form.
// Unknown flags and bad values surface as boost::program_options errors that main reports.
#pragma once
#include <boost/program_options.hpp>

#include <iostream>
#include <string>

namespace tune::cli {

namespace po = boost::program_options;

// Parses argv (argv[0] is the subcommand) into vm. Returns false when --help was asked (help printed).
inline bool parse_or_help(int argc, char** argv, po::options_description& desc, po::variables_map& vm,
                          const std::string& usage) {
  desc.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << desc << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace tune::cli
