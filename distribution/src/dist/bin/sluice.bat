@echo off
rem Starts the Sluice gateway on Windows (SPEC SH-4), or runs one of its commands (sluice.bat
rem --help lists them: serve, the default; doctor; providers, keys, cooldowns, breakers). Needs
rem Java 21 or newer: JAVA_HOME, or java on the PATH. SLUICE_JAVA_OPTS adds JVM options; the
rem SLUICE_* variables described in conf\sluice.yaml override the config file; SLUICE_URL and
rem SLUICE_ADMIN_KEY tell the admin commands which server to talk to. Arguments go to the Java
rem entry point, which refuses unknown commands (exit 2) without starting a server.
rem (No parenthesised blocks below: a ")" in an expanded path such as "Program Files (x86)"
rem would end them.)
setlocal

set "SLUICE_HOME_DIR=%~dp0.."
for %%i in ("%SLUICE_HOME_DIR%") do set "SLUICE_HOME_DIR=%%~fi"

set "JAVA_EXE=java.exe"
if defined JAVA_HOME set "JAVA_EXE=%JAVA_HOME%\bin\java.exe"

rem "java -version" prints e.g.  openjdk version "21.0.2" 2024-01-16  ("call" keeps the quotes
rem of a path with spaces intact inside for /f).
set "JAVA_VERSION_STRING="
for /f "tokens=3" %%v in ('call "%JAVA_EXE%" -version 2^>^&1 ^| findstr /i /c:version') do if not defined JAVA_VERSION_STRING set "JAVA_VERSION_STRING=%%~v"
if not defined JAVA_VERSION_STRING goto noJava
set "JAVA_MAJOR="
for /f "delims=.-+_ " %%m in ("%JAVA_VERSION_STRING%") do set "JAVA_MAJOR=%%m"
if "%JAVA_MAJOR%"=="1" set "JAVA_MAJOR=8"
if %JAVA_MAJOR% LSS 21 goto oldJava

rem compact object headers where the JVM has them (JDK 25+; docs/operator-guide.md section 14)
set "SLUICE_COMPACT_HEADERS="
if %JAVA_MAJOR% GEQ 25 set "SLUICE_COMPACT_HEADERS=-XX:+UseCompactObjectHeaders"
"%JAVA_EXE%" -XX:+UseSerialGC -Xmx192m -Xmn32m -XX:SurvivorRatio=4 %SLUICE_COMPACT_HEADERS% "-Djdk.http.auth.tunneling.disabledSchemes=" %SLUICE_JAVA_OPTS% "-Dsluice.home=%SLUICE_HOME_DIR%" --enable-native-access=org.xerial.sqlitejdbc -p "%SLUICE_HOME_DIR%\lib" -m sluice.runtime/dev.sluice.runtime.Main %*
exit /b %ERRORLEVEL%

:noJava
echo Sluice needs Java 21 or newer; found no Java at "%JAVA_EXE%"; set JAVA_HOME to a JDK 21+. 1>&2
exit /b 1

:oldJava
echo Sluice needs Java 21 or newer; found Java %JAVA_VERSION_STRING% at "%JAVA_EXE%"; set JAVA_HOME to a JDK 21+. 1>&2
exit /b 1
