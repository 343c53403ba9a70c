"""Test support shared by the test suites and the benchmark."""
