// How a PathJail is set up: its options, and what the check of its descriptor
// anchor reports.

/** Options of the {@linkcode PathJail} constructor. */
export interface PathJailOptions {
  /**
   * Whether a regular file with more than one name (hard link) is read or
   * described. Off, such a file is refused: another of its names may lie
   * outside every root, and no path check can see it.
   * @default {false}
   */
  allowHardLinks?: boolean;
  /**
   * The absolute path of a symbolic link to `/proc/self/fd` that the
   * operator made (`ln -s /proc/self/fd <path>`), in a folder no other user
   * can write, and that the process may read (and write, for writable roots).
   * With it (Linux only), every file is reached from a descriptor of its root,
   * one checked name at a time, each through the descriptor of the folder
   * before it: no swap of a folder on the way can redirect a call. Without
   * it, see docs/security.md for the window that remains.
   */
  descriptorAnchor?: string;
}

/** What {@linkcode PathJail.checkDescriptorAnchor} found. */
export interface DescriptorAnchorCheck {
  /**
   * Whether the anchor's folder was checked not to be writable by group or
   * others; false when this process may not stat that folder.
   */
  folderChecked: boolean;
  /** How many roots were opened through the anchor and found to be the same folders. */
  rootsChecked: number;
}
