/**
 * The web UI's entry: the styles, the theme, and the app in #app. The
 * server embeds the bundle built from here (scripts/build_ui.ts).
 */
import "./styles.css";
import { render } from "preact";
import { App } from "./app.tsx";
import { applyTheme } from "./theme.ts";

applyTheme();
render(<App />, document.getElementById("app")!);
