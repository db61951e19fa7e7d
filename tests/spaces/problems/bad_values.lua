problem {
  name = "bad_values",
  sizes = { { "n", "int" }, { "mode", "int", values = { 0, 1, 1 } } },
  buffers = { { "x", "float", role = "out", length = "n" } },
  args = { "x", "n", "mode" },
  signature = { "x", "n", "mode" },
  verify = "exact",
  tune = { { n = 64, mode = 0 } },
}
