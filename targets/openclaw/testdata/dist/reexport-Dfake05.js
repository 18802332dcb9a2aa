// A chunk that re-exports a name it does not define: discovery must prefer the defining chunk.
import { r as createCodeModeTools } from "./code-mode-Qfake03.js";
const unrelated = 1;
export { createCodeModeTools, unrelated as u };
