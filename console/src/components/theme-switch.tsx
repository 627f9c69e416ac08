/** The light/dark switch of the top bar: system, light or dark, remembered in this browser. */
import { useState } from 'preact/hooks';
import { applyTheme, savedTheme, THEMES, type Theme } from '../theme.ts';

const LABELS: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' };

export function ThemeSwitch() {
  const [theme, setTheme] = useState<Theme>(savedTheme());
  return (
    <label class="theme-switch">
      <span>Theme</span>
      <select
        value={theme}
        onChange={(event) => {
          const next = event.currentTarget.value as Theme;
          applyTheme(next);
          setTheme(next);
        }}
      >
        {THEMES.map((value) => (
          <option value={value} key={value}>
            {LABELS[value]}
          </option>
        ))}
      </select>
    </label>
  );
}
