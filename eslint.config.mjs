// ESLint for the web table's script (sim/table/static/table.js); `make test` runs it.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["sim/table/static/**/*.js"],
    languageOptions: {ecmaVersion: 2022, sourceType: "script", globals: globals.browser},
    rules: {
      "eqeqeq": "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-implicit-globals": "off",
      "no-shadow": "error",
      "no-use-before-define": ["error", {functions: false}],
      "strict": ["error", "global"],
    },
  },
];
