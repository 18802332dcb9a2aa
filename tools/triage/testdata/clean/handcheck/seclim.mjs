// fixture hand-check script: its cases are named after the requirement they reproduce
const CASES = {
  "CM-LIM-02 64 MiB of live strings at 8 MiB": "…",
  "CM-LIM-03 200 KB of text at maxOutputBytes 2048": "…",
};
