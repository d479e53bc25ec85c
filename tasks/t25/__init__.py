"""t25: refactoring one of Mobium's `*.test.json` files; its task file sits beside the test files it runs."""
