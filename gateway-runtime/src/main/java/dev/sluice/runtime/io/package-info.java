/** Small I/O helpers shared by the web layer and the executors. */
package dev.sluice.runtime.io;
