/**
 * The colour theme: auto (the system's), light, dark or high contrast. It
 * is the one thing the UI keeps in localStorage.
 */
import { signal } from "@preact/signals";

export const THEMES = ["auto", "light", "dark", "contrast"] as const;
export type Theme = (typeof THEMES)[number];

const KEY = "kudurru.theme";

function stored(): Theme {
  try {
    const value = localStorage.getItem(KEY);
    return (THEMES as readonly string[]).includes(value ?? "")
      ? value as Theme
      : "auto";
  } catch {
    return "auto";
  }
}

export const theme = signal<Theme>(stored());

/** Sets the theme on the page (styles.css reads data-theme). */
export function applyTheme(next: Theme = theme.value): void {
  theme.value = next;
  document.documentElement.dataset.theme = next;
  try {
    if (next === "auto") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, next);
  } catch {
    // Storage may be off; the theme still applies to this page.
  }
}
