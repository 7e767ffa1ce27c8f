/**
 * The few icons the IDE uses, as inline SVG: no icon font to download, and no glyph that a
 * machine's fonts may lack.
 */
const PATHS = {
  files: 'M4 1.5h5.5l3.5 3.5v9a.5.5 0 0 1-.5.5h-8.5a.5.5 0 0 1-.5-.5v-12a.5.5 0 0 1 .5-.5z M9.5 1.5v3.5h3.5',
  branch:
    'M4.5 2.5a1.5 1.5 0 1 1 0 .01z M4.5 4v8 M4.5 12a1.5 1.5 0 1 1 0 .01z M11.5 4.5a1.5 1.5 0 1 1 0 .01z M11.5 6c0 3.5-7 2.5-7 6',
  terminal: 'M1.5 2.5h13v11h-13z M4 6l2.5 2L4 10 M8 10.5h4',
  newFile: 'M4 1.5h5.5l3.5 3.5v9a.5.5 0 0 1-.5.5h-8.5a.5.5 0 0 1-.5-.5v-12a.5.5 0 0 1 .5-.5z M8 7v5 M5.5 9.5h5',
  newFolder: 'M1.5 3.5h4.5l1.5 1.5h7v8.5h-13z M8 7v5 M5.5 9.5h5',
  upload: 'M8 11V2.5 M4.5 6L8 2.5 11.5 6 M2.5 11v2.5h11V11',
  download: 'M8 2.5V11 M4.5 7.5L8 11l3.5-3.5 M2.5 11v2.5h11V11',
  refresh: 'M13 8a5 5 0 1 1-1.5-3.6 M13 2.5v3h-3',
  collapse: 'M2.5 2.5h11v11h-11z M5 8h6',
  pencil: 'M10.5 2.5l3 3-8 8h-3v-3z M9 4l3 3',
  close: 'M4 4l8 8 M12 4l-8 8',
  trash: 'M2.5 4h11 M6 4V2.5h4V4 M4 4l.7 9.5h6.6L12 4 M6.5 6.5v5 M9.5 6.5v5',
  plus: 'M8 3v10 M3 8h10',
  minus: 'M3 8h10',
  clone: 'M8 2.5V10 M4.5 6.5L8 10l3.5-3.5 M3 13.5h10',
  moon: 'M13 9.5A5.5 5.5 0 1 1 6.5 3a4.5 4.5 0 0 0 6.5 6.5z',
  sun: 'M8 5a3 3 0 1 1 0 6 3 3 0 0 1 0-6z M8 1v1.5 M8 13.5V15 M1 8h1.5 M13.5 8H15 M3 3l1 1 M12 12l1 1 M3 13l1-1 M12 4l1-1',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16, label }: { name: IconName; size?: number; label?: string }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.3}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden={label ? undefined : true}
      role={label ? 'img' : undefined}
      aria-label={label}
      className="icon"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
