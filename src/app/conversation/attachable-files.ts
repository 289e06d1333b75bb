/** What the composer's Attach takes: text of any kind (plain, Markdown, code, CSV, JSON…) and PDF. */
export const ATTACHABLE_FILES =
  '.txt,.md,.markdown,.csv,.tsv,.json,.jsonl,.xml,.html,.htm,.css,.js,.mjs,.cjs,.ts,.tsx,.jsx,.py,.rb,.go,.rs,.java,.kt,.swift,.c,.h,.cpp,.hpp,.cs,.php,.sh,.yaml,.yml,.toml,.ini,.sql,.log,.tex,.pdf,text/*,application/pdf';
