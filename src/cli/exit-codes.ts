/** The shell's code for a command ended by Ctrl-C (128 + SIGINT). */
export const INTERRUPTED_EXIT_CODE = 130;

/** The shell's code for a command ended because its reader went away (128 + SIGPIPE), as git and coreutils end. */
export const READER_GONE_EXIT_CODE = 141;
