/**
 * Light or dark: the system's preference by default, or the reader's choice, remembered in this
 * browser (localStorage holds only the word). The choice is set on <html data-theme>, which the
 * stylesheet reads; "system" removes it so that prefers-color-scheme decides.
 */
export type Theme = 'system' | 'light' | 'dark';

const KEY = 'gw-console-theme';
export const THEMES: Theme[] = ['system', 'light', 'dark'];

export function savedTheme(): Theme {
  const saved = localStorage.getItem(KEY);
  return saved === 'light' || saved === 'dark' ? saved : 'system';
}

export function applyTheme(theme: Theme): void {
  if (theme === 'system') {
    delete document.documentElement.dataset.theme;
    localStorage.removeItem(KEY);
  } else {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(KEY, theme);
  }
}
