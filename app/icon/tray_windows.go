package icon

// trayICO: the Windows tray loads only .ico files.
const trayICO = true
