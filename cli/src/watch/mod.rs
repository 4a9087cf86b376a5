//! `lineage watch`: the live session tree in the terminal, with time travel.
//!
//! Owns: the thin loop between the world and the [`App`]: it opens the source (a
//! follower thread per source, [`follow`]), sets up the terminal and always restores it
//! (on `q`, on an error, on SIGTERM/SIGHUP/SIGINT, and from a panic hook), reads keys,
//! hands the app what arrived within a time budget, ticks the clock, and redraws at most
//! 30 times a second however fast records arrive.
//! Never: decides what is shown (the app and [`render`] do) or interprets a record (the
//! engine does).
//!
//! Modules: `history` (the engine and the states kept for time travel), `app` (the
//! screen's model), `rows` (the tree as rows), `render` (drawing), `keys` (the key
//! map), `follow` (the sources).

mod app;
mod follow;
mod history;
mod keys;
mod render;
mod rows;
#[cfg(test)]
mod tests;

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::{cursor, execute, terminal as term};

use crate::{Exit, WatchArgs, input, native_source, terminal};
use app::{App, Feed, Quit};
use history::History;

/// At most this often the screen is drawn.
const FRAME: Duration = Duration::from_millis(33);
/// The spinner's and the ages' step.
const TICK: Duration = Duration::from_millis(100);
/// How long one pass may spend applying records before it looks at the keys again.
const BUDGET: Duration = Duration::from_millis(15);
/// How many feeds may wait in the channel before a source waits.
const QUEUE: usize = 4096;

pub(crate) fn run(args: &WatchArgs) -> Exit {
    let (tx, rx) = mpsc::sync_channel(QUEUE);
    let started = match start(args, tx) {
        Ok(s) => s,
        Err((message, exit)) => {
            terminal::warn(&format!("error: {message}"));
            return exit;
        }
    };
    let color = colors(args);
    let app = App::new(History::new(args.input_format, args.spec), started.label).with_color(color);
    let quit = match Screen::enter() {
        Ok(mut screen) => {
            let quit = screen.run(app, &rx);
            screen.restore();
            quit
        }
        Err(e) => Err(io::Error::other(format!(
            "lineage watch draws on a terminal and none could be set up ({e})"
        ))),
    };
    if let Some(pid) = started.program {
        end_program(pid);
    }
    match quit {
        Ok(Quit::Normal) => Exit::Clean,
        Ok(Quit::Interrupted) => Exit::Code(130),
        Err(e) => {
            terminal::warn(&format!("error: {e}"));
            Exit::Usage
        }
    }
}

/// Whether the screen gets colour: `--no-color`, else `--color` as other commands read
/// it (`auto`: no `NO_COLOR`, no `TERM=dumb`; watch always draws on a terminal).
fn colors(args: &WatchArgs) -> bool {
    if args.no_color {
        return false;
    }
    terminal::colors_on_terminal(args.color)
}

/// A started source: its title, and the program's process id with `--record`.
struct Started {
    label: String,
    program: Option<u32>,
}

/// Starts the follower of the source the arguments name; an error is said before the
/// terminal is touched.
fn start(args: &WatchArgs, tx: mpsc::SyncSender<Feed>) -> Result<Started, (String, Exit)> {
    if args.record {
        let pid = follow::record(&args.command, tx)?;
        let label = format!("record: {}", args.command.join(" "));
        return Ok(Started {
            label,
            program: Some(pid),
        });
    }
    let Some(path) = args.source.clone() else {
        return Err((
            "no source to watch: give a trace, a folder or `-`".into(),
            Exit::Usage,
        ));
    };
    let label = path.display().to_string();
    let usage = |why: String| (format!("{label}: {why}"), Exit::Usage);
    if input::is_stdin(&path) {
        if io::stdin().is_terminal() {
            return Err(usage(
                "standard input is the terminal: pipe a trace into it".into(),
            ));
        }
        follow::stream(path, tx);
    } else if args.input_format.is_none() && native_source::is_native(&path) {
        if args.session.is_some() && !path.is_dir() {
            terminal::warn(
                "note: --session picks a tree of a folder; this file's own tree is shown",
            );
        }
        follow::native(path, args.session.clone(), tx);
    } else {
        let meta = std::fs::metadata(&path).map_err(|e| usage(e.to_string()))?;
        if meta.is_dir() {
            return Err(usage("a folder of no native source".into()));
        }
        if args.session.is_some() {
            terminal::warn("note: --session picks a tree of a native source; a trace file has one");
        }
        if meta.is_file() {
            let file = std::fs::File::open(&path).map_err(|e| usage(e.to_string()))?;
            follow::trace_file(path, file, tx);
        } else {
            follow::stream(path, tx);
        }
    }
    Ok(Started {
        label,
        program: None,
    })
}

/// Ends the recorded program when the user leaves before it did.
fn end_program(pid: u32) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{Signal, kill};
        use nix::unistd::Pid;
        if let Ok(pid) = i32::try_from(pid) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Where the screen is drawn: standard output when it is the terminal, else the
/// controlling terminal (`/dev/tty`), so `watch --record` can pass the program's output
/// on through a pipe.
fn screen_output() -> io::Result<(Box<dyn Write + Send>, bool)> {
    if io::stdout().is_terminal() {
        return Ok((Box::new(io::stdout()), true));
    }
    let tty = std::fs::OpenOptions::new()
        .write(true)
        .open(Path::new("/dev/tty"))?;
    Ok((Box::new(tty), false))
}

/// Puts a terminal back as it was: cooked mode, the main screen, a visible cursor.
fn restore_terminal<W: Write>(out: &mut W) {
    let _ = term::disable_raw_mode();
    let _ = execute!(out, term::LeaveAlternateScreen, cursor::Show);
    let _ = out.flush();
}

/// The terminal while the screen is up; [`Screen::restore`] (also run on drop and by
/// the panic hook) puts it back.
struct Screen {
    terminal: Terminal<CrosstermBackend<Box<dyn Write + Send>>>,
    restored: bool,
    /// Set by SIGTERM, SIGHUP or SIGINT.
    signalled: Arc<AtomicBool>,
}

impl Screen {
    fn enter() -> io::Result<Self> {
        let (mut out, on_stdout) = screen_output()?;
        install_panic_hook(on_stdout);
        let signalled = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        for signal in [
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
            signal_hook::consts::SIGINT,
        ] {
            let _ = signal_hook::flag::register(signal, Arc::clone(&signalled));
        }
        term::enable_raw_mode()?;
        if let Err(e) = execute!(out, term::EnterAlternateScreen, cursor::Hide) {
            restore_terminal(&mut out);
            return Err(e);
        }
        let terminal = match Terminal::new(CrosstermBackend::new(out)) {
            Ok(t) => t,
            Err(e) => {
                let (mut out, _) = screen_output()?;
                restore_terminal(&mut out);
                return Err(e);
            }
        };
        Ok(Self {
            terminal,
            restored: false,
            signalled,
        })
    }

    fn restore(&mut self) {
        if !std::mem::replace(&mut self.restored, true) {
            restore_terminal(self.terminal.backend_mut());
        }
    }

    /// The loop: keys first, then what arrived (within [`BUDGET`]), the clock, and a
    /// redraw when something changed and [`FRAME`] has passed.
    fn run(&mut self, mut app: App, rx: &Receiver<Feed>) -> io::Result<Quit> {
        let mut last_draw: Option<Instant> = None;
        let mut last_tick = Instant::now();
        let mut dirty = true;
        app.tick(crate::record_cmd::proxy::now_ms());
        loop {
            while event::poll(Duration::ZERO)? {
                dirty |= self.key(&mut app, event::read()?);
            }
            if self.signalled.load(Ordering::Relaxed) {
                app.interrupt();
            }
            if let Some(quit) = app.quit() {
                return Ok(quit);
            }
            let arrived = drain(&mut app, rx);
            dirty |= arrived;
            if last_tick.elapsed() >= TICK {
                app.tick(crate::record_cmd::proxy::now_ms());
                last_tick = Instant::now();
                dirty = true;
            }
            if dirty && last_draw.is_none_or(|t| t.elapsed() >= FRAME) {
                self.terminal.draw(|f| render::render(&app, f))?;
                last_draw = Some(Instant::now());
                dirty = false;
            }
            if !arrived {
                // Nothing came: wait for a key, at most until the next frame is due.
                event::poll(FRAME)?;
            }
        }
    }

    fn key(&mut self, app: &mut App, event: Event) -> bool {
        match event {
            Event::Key(key) => {
                if let Some(action) = keys::action(key, app.typing().is_some()) {
                    app.act(action);
                }
                true
            }
            Event::Resize(..) => {
                let _ = self.terminal.autoresize();
                true
            }
            _ => false,
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.restore();
    }
}

/// Hands the app what arrived, for at most [`BUDGET`]; whether anything did.
fn drain(app: &mut App, rx: &Receiver<Feed>) -> bool {
    let start = Instant::now();
    let mut any = false;
    loop {
        match rx.try_recv() {
            Ok(feed) => {
                app.feed(feed);
                any = true;
                if start.elapsed() >= BUDGET {
                    return any;
                }
            }
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => return any,
        }
    }
}

/// A panic restores the terminal before its message is printed (once per run).
fn install_panic_hook(on_stdout: bool) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let out: io::Result<Box<dyn Write>> = if on_stdout {
            Ok(Box::new(io::stdout()))
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/tty")
                .map(|f| Box::new(f) as Box<dyn Write>)
        };
        if let Ok(mut out) = out {
            restore_terminal(&mut out);
        }
        previous(info);
    }));
}
