-- values whose length and elements come from metamethods: read raw, so the
-- list is empty and refused
problem {
  name = "hostile_values",
  sizes = { { "n", "int" }, { "mode", "int", values = setmetatable({}, { __len = function() return 2 end,
    __index = function() return 0 end }) } },
  buffers = { { "x", "float", role = "out", length = "n" } },
  args = { "x", "n", "mode" },
  signature = { "x", "n", "mode" },
  verify = "exact",
  tune = { { n = 64, mode = 0 } },
}
