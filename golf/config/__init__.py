"""Run configurations, by job: the schema and its docs (:mod:`golf.config.schema`), reading
and merging YAML (:mod:`golf.config.load`), and the keyword configs of the Python API
(:mod:`golf.config.keywords`). The checks of a problem section are its kind's
(:mod:`golf.problems`).

A file describes one run, or a competition of several problems::

    name: quick                      # runs go to <output.dir>/<name>/
    problem: {n: 256, d: 8, g: 4, start: random}   # or circulant, or an edge-list file
    # a grid problem (golf.grid): problem: {grid: [10, 10], d: 6, r: 3, g: 2}
    # a host-switch problem (golf.hostswitch): problem: {hosts: 1024, radix: 10}
    search: {method: sa, steps: 200000, time_limit: 60, seed: 1}
    evaluator: {backend: auto}
    parallel: {mode: none}
    output: {dir: results}

    # or: the keys above as defaults, and a list of problems that may override any of them;
    # each problem runs in <output.dir>/<name>/<problem name>/
    problems:
      - {name: n50d4, problem: {n: 50, d: 4}}
      - {name: n512d6, problem: {n: 512, d: 6, g: 8}, search: {time_limit: 600}}
"""

from golf.config.keywords import Keywords
from golf.config.load import (MAX_CONFIG_BYTES, MAX_YAML_DEPTH, RunConfig, Where, check_output,
                              dump, load_config, load_yaml, merge, parse_overrides, read_yaml)
from golf.config.schema import DOCS, SCHEMA, START_KINDS, evaluator_schema, validate

__all__ = ["RunConfig", "load_config", "parse_overrides", "merge", "SCHEMA", "DOCS",
           "START_KINDS", "validate", "evaluator_schema", "read_yaml", "load_yaml",
           "MAX_CONFIG_BYTES", "MAX_YAML_DEPTH", "Where", "check_output", "dump", "Keywords"]
