"""The 26 category state machines (UCSMs) of the demo library, in a compact line format.

`@Category w h d [dash]` starts a category (body size, whether it has a dashboard panel); `c[?] name shape
face` is a component (`?`: variants may drop it; face `panel` = on the front panel that the dashboard shows);
`s name [error] [dark] | description`; `t from component action params > to | description` with `~` for
timed_wait and `^` for immediate, params comma-separated or `-` for none. The first state is the initial one.

Looks (rendering only; the engine never reads them): a `c` line may end in `as=SHAPE` (the control drawn; the
layout keeps the size class of the first shape), `detents=N` (a dial's marks; by default one more than the
longest rotation the UCSM makes) and `rest=VALUE` (its look in every state that does not say otherwise). A state
line may end in a second `| comp=VALUE ... fx=KIND[:LEVEL]`: VALUE is a dial's detent index (or `45deg`), a
door/lid/drawer/tray/basket/handle's open fraction, a switch/slider/lever position, a light's `off`/`on`/colour
name, a display's text (`_` for a space, `-` blank, `red@ERR` for coloured text), a button's `down`/`up`
(`up+green`: its lamp lit), an indicator's level. Lights and displays not named follow the `dark` flag (lit
unless dark); a display not named shows nothing. `i state state | why` lists a pair that deliberately looks the
same.
"""

SPEC = r"""
@CoffeeMachine 300 380 400 dash
c power_button button panel
c brew_button button panel
c strength_dial dial panel
c display display panel
c drip_tray handle front as=tray
c? water_tank lid top
s off dark | The coffee machine is off and its panel is dark.
s standby | The machine is warm and ready; the panel light is on. | display=READY
s strong | The strength dial points at the strong setting. | display=STRONG strength_dial=1
s brewing | Coffee is dripping into the cup. | display=BREWING fx=steam:0.5
s done | A full cup of coffee sits on the drip tray. | display=ENJOY fx=steam:0.15
s tray_out | The drip tray is pulled out with the cup on it. | display=ENJOY drip_tray=1
s tank_open dark | The water tank lid is open. | water_tank=1
s overflow error | Hot coffee pours over the counter. | display=red@ERR fx=water
t off power_button press 0 > standby | The machine clicks and the panel light turns on.
t standby power_button press 1 > off | The machine switches off.
t strong power_button press 1 > off | The machine switches off.
t standby strength_dial rotate 0,1 > strong | The dial clicks one step clockwise.
t strong strength_dial rotate 1,1 > standby | The dial clicks back one step.
t standby brew_button press 0 > brewing | The pump hums and coffee starts to drip.
t strong brew_button press 0 > brewing | The pump hums loudly and dark coffee starts to drip.
t brewing ~ > done | After a while the dripping stops and the machine beeps.
t brewing drip_tray pull 4 > overflow | You pulled the tray out while the machine was still brewing.
t overflow ^ > off | The machine shuts itself off.
t done drip_tray pull 4 > tray_out | The drip tray slides out with the cup.
t tray_out drip_tray push 4 > standby | The drip tray slides back in.
t off water_tank pull 0 > tank_open | The tank lid lifts up.
t tank_open water_tank push 1 > off | The tank lid closes.

@DigitalAlarmClock 400 200 160
c set_button button top
c up_button button top
c snooze_bar button top
c alarm_switch switch back
c display display front
s time | The display shows the time. | display=7:00
s set_mode | The hour digits are blinking. | display=SET_7:00
s hour_changed | The blinking hour has moved on by one. | display=SET_8:00
s armed | A small bell icon is shown next to the time. | display=7:00_ALM alarm_switch=1
s ringing | The clock is beeping loudly. | display=WAKE_UP alarm_switch=1 fx=motion:1
s snoozed | The beeping stopped and Zz is shown. | display=7:00_Zz alarm_switch=1
t time set_button press 1 > set_mode | The hour digits start to blink.
t set_mode set_button press 0 > time | The digits stop blinking.
t set_mode up_button press 0 > hour_changed | The hour goes up by one.
t hour_changed set_button press 0 > time | The new time is stored and the digits stop blinking.
t time alarm_switch push 0 > armed | The switch clicks up and a bell icon appears.
t armed alarm_switch push 1 > time | The switch clicks down and the bell icon disappears.
t armed ~ > ringing | Time passes and the alarm starts beeping.
t ringing snooze_bar press 0 > snoozed | The beeping stops.
t snoozed ~ > ringing | A few minutes later the beeping starts again.
t ringing alarm_switch push 1 > time | The beeping stops and the bell icon disappears.

@Lighter 60 90 30
c cap lid top
c wheel dial top
c? fuel_valve dial bottom
s closed dark | The lighter's cap is closed.
s open dark | The cap is open; the wick is ready. | cap=1
s lit | A small steady flame burns. | cap=1 fx=flame:0.35
s high_gas dark | The gas valve is turned up; gas hisses faintly. | cap=1 fuel_valve=2
s flare error | A tall flame shoots up dangerously. | cap=1 fuel_valve=2 fx=flame:1
t closed cap pull 0 > open | The cap flips open with a clink.
t open cap push 1 > closed | The cap snaps shut.
t open wheel rotate 1,1 > lit | The wheel scrapes, sparks fly and a flame appears.
t lit cap push 1 > closed | Closing the cap smothers the flame.
t open fuel_valve rotate 0,2 > high_gas | The valve turns and the gas hisses louder.
t high_gas fuel_valve rotate 1,2 > open | The valve turns back and the hissing calms.
t high_gas wheel rotate 1,1 > flare | Sparks ignite a big burst of gas.
t flare ^ > closed | You snap the cap shut to smother it.

@Microwave 500 300 380 dash
c door door front
c door_button button panel
c time_dial dial panel
c start_button button panel
c stop_button button panel
c display display panel
s idle | The microwave is closed and the display shows 0:00. | display=0:00
s door_open | The door is open and the inside light is on. | display=0:00 door=1
s time_set | The display shows 1:00. | display=1:00 time_dial=2
s heating | The turntable spins and the microwave hums. | display=0:59 time_dial=2 fx=glow:0.5
s done | The display shows End and the food is hot. | display=End
s sparks error | Sparks crackle inside the microwave. | display=red@Err time_dial=2 fx=sparks
t idle door_button press 0 > door_open | The door pops open.
t door_open door push 4 > idle | The door shuts with a click.
t idle time_dial rotate 0,2 > time_set | The dial turns two clicks clockwise.
t time_set time_dial rotate 1,2 > idle | The dial turns back and the display resets.
t time_set start_button press 0 > heating | The light comes on and the microwave starts humming.
t time_set start_button press 2 > sparks | The grill starts at full power and something metallic sparks.
t sparks ^ > idle | The microwave stops itself.
t heating stop_button press 0 > time_set | The humming stops.
t heating ~ > done | The microwave beeps three times.
t done door_button press 0 > door_open | The door pops open and steam comes out.

@WashingMachine 600 850 600 dash
c power_button button panel
c program_dial dial panel
c start_button button panel
c display display panel
c door door front
c? detergent_drawer handle panel as=drawer
s off dark | The washing machine is off.
s on | The panel is lit and waiting for a program. | display=READY
s program | The display shows 40 degrees and 1:20. | display=40C_1:20 program_dial=3
s washing | Water sloshes as the drum turns. | display=WASH_1:10 program_dial=3 fx=motion:0.3
s spinning | The drum spins fast and loud. | display=SPIN_0:12 program_dial=3 fx=motion:1
s done | The display shows End. | display=End program_dial=3
s door_open | The round door stands open. | display=READY door=1
s flood error | Water splashes out onto the floor. | detergent_drawer=1 fx=water
t off power_button press 0 > on | The panel lights up with a beep.
t on power_button press 0 > off | The panel goes dark.
t on program_dial rotate 0,3 > program | The dial clicks three times.
t program program_dial rotate 1,3 > on | The dial clicks back.
t program start_button press 0 > washing | Water rushes in and the drum starts to turn.
t washing ~ > spinning | The drum speeds up into a spin.
t spinning ~ > done | The drum slows down and stops; it beeps.
t washing detergent_drawer pull 4 > flood | The detergent drawer opens mid-wash.
t flood ^ > off | The machine stops and switches off.
t on door pull 4 > door_open | The door swings open.
t done door pull 4 > door_open | The door unlocks and swings open.
t door_open door push 4 > on | The door closes with a thud.

@MechanicalAlarmClock 260 300 120
c winding_key dial back
c alarm_knob dial back
c alarm_lever switch top as=lever
c stop_button button top
s unwound | The clock is silent; its hands do not move.
s wound | The clock ticks steadily. | winding_key=3 fx=motion:0.2
s alarm_set | The alarm hand points just past the hour hand. | winding_key=3 alarm_knob=2 fx=motion:0.2
s armed | The alarm lever is up. | winding_key=3 alarm_knob=2 alarm_lever=1 fx=motion:0.2
s ringing | The bells ring loudly. | winding_key=3 alarm_knob=2 alarm_lever=1 fx=motion:1
s silenced | The bells are quiet; the lever is still up. | winding_key=3 alarm_knob=2 alarm_lever=1 stop_button=down
s overwound error | The spring creaks under strain. | winding_key=5
t unwound winding_key rotate 0,3 > wound | The key turns and the clock starts ticking.
t wound winding_key rotate 0,5 > overwound | The key keeps turning far too tight.
t overwound ^ > wound | The key slips back a little.
t wound alarm_knob rotate 0,2 > alarm_set | The small alarm hand moves forward.
t alarm_set alarm_lever push 0 > armed | The lever clicks up.
t armed ~ > ringing | The hammer hits the bells.
t ringing stop_button press 0 > silenced | The bells stop.
t ringing alarm_lever push 1 > wound | The lever drops and the ringing stops.
t silenced alarm_lever push 1 > wound | The lever drops.

@WeighingScale 400 40 400
c platform button top
c unit_button button front
c tare_button button front
c display display front
c? battery_cover lid bottom
s off dark | The scale is off.
s zero | The display shows 0.0 kg. | display=0.0_kg
s zero_lb | The display shows 0.0 lb. | display=0.0_lb
s loaded | The display shows 2.4 kg. | display=2.4_kg platform=down
s tared | The display shows 0.0 with a T mark. | display=T_0.0_kg platform=down
s battery_out dark | The battery compartment is open. | battery_cover=1
t off platform press 0 > zero | The display lights up and shows zero.
t zero unit_button press 0 > zero_lb | The unit switches to pounds.
t zero_lb unit_button press 0 > zero | The unit switches to kilograms.
t zero platform press 1 > loaded | You press on the platform and a weight shows.
t loaded tare_button press 0 > tared | The reading resets to zero with the load on.
t tared ~ > off | After a while the scale turns itself off.
t zero ~ > off | After a while the scale turns itself off.
t off battery_cover pull 1 > battery_out | The battery cover slides off.
t battery_out battery_cover push 0 > off | The battery cover clicks back on.

@Heater 500 600 200
c power_switch switch top
c thermostat dial front
c mode_button button front
c light light front
s off dark | The heater is off and cold. | light=off
s low | The heater glows softly. | power_switch=1 light=amber fx=glow:0.3
s high | The heater glows bright and the fan is loud. | power_switch=1 thermostat=2 light=amber fx=glow:1
s eco | A green light is on; the heater glows softly. | power_switch=1 light=green fx=glow:0.3
s overheat error | A burning smell comes from the heater. | power_switch=1 thermostat=2 light=red fx=smoke
t off power_switch push 0 > low | The switch clicks and the heater starts to glow.
t low power_switch push 1 > off | The heater goes dark.
t high power_switch push 1 > off | The heater goes dark.
t eco power_switch push 1 > off | The heater goes dark.
t low thermostat rotate 0,2 > high | The glow brightens and the fan speeds up.
t high thermostat rotate 1,2 > low | The glow dims.
t low mode_button press 0 > eco | A green light comes on.
t eco mode_button press 0 > low | The green light goes out.
t high ~ > overheat | After a long time at full power the case gets too hot.
t overheat ^ > off | The safety cut-out trips and the heater switches off.

@Lamp 250 600 250
c pull_cord handle bottom as=handle
c dimmer dial front
c? shade handle top
s off dark | The lamp is off.
s on | The lamp shines with a soft light. | fx=glow:0.4
s bright | The lamp shines brightly. | dimmer=2 fx=glow:1
s tilted dark | The shade is tilted down; the lamp is off. | shade=1
t off pull_cord pull 1 > on | Click; the bulb lights up.
t on pull_cord pull 1 > off | Click; the light goes out.
t bright pull_cord pull 1 > off | Click; the light goes out.
t on dimmer rotate 0,2 > bright | The light grows brighter.
t bright dimmer rotate 1,2 > on | The light dims.
t off shade grasp - > tilted | You tilt the shade downward.
t tilted shade grasp - > off | You set the shade straight again.

@ElectricKettle 220 260 180
c lid_button button top
c lid lid top
c power_switch switch front
c handle handle right
c light light front
s idle dark | The kettle sits on its base, lid closed.
s lid_open dark | The lid is open. | lid=1
s boiling | The water rumbles and the light is on. | power_switch=1 light=blue fx=steam:0.5
s boiled dark | The water has boiled; the switch has popped up. | fx=steam:0.15
s lifted dark | The kettle is lifted off its base. | handle=1 fx=steam:0.15
s steam error | Steam blasts out of the open lid. | lid=1 power_switch=1 light=red fx=steam:1
t idle lid_button press 0 > lid_open | The lid springs open.
t lid_open lid push 1 > idle | The lid clicks shut.
t idle power_switch push 1 > boiling | The switch clicks down and the light turns on.
t boiling power_switch push 0 > idle | The switch pops up and the light goes off.
t boiling ~ > boiled | The water boils and the switch clicks off.
t lid_open power_switch push 1 > steam | The kettle starts heating with the lid open.
t steam ^ > lid_open | The kettle switches itself off.
t boiled handle grasp - > lifted | You lift the kettle off its base.
t lifted handle grasp - > boiled | You put the kettle back on its base.

@ElectricFan 400 1000 300
c speed_1 button front
c speed_2 button front
c off_button button front
c timer_dial dial front
c? osc_knob handle top as=button
s off | The fan is still.
s speed1 | The blades turn slowly. | speed_1=down fx=motion:0.3
s speed2 | The blades turn fast. | speed_2=down fx=motion:1
s oscillating | The blades turn slowly and the head swings side to side. | speed_1=down osc_knob=down fx=motion:0.3
s timer | The fan runs fast and the timer ticks. | speed_2=down timer_dial=2 fx=motion:1
t off speed_1 press 0 > speed1 | The blades start turning slowly.
t off speed_2 press 0 > speed2 | The blades start turning fast.
t speed1 speed_2 press 0 > speed2 | The blades speed up.
t speed2 speed_1 press 0 > speed1 | The blades slow down.
t speed1 off_button press 0 > off | The blades slow to a stop.
t speed2 off_button press 0 > off | The blades slow to a stop.
t speed1 osc_knob push 1 > oscillating | The head starts swinging left and right.
t oscillating osc_knob pull 0 > speed1 | The head stops swinging.
t speed2 timer_dial rotate 0,2 > timer | The timer starts ticking.
t timer ~ > off | The timer runs out and the fan stops.

@AirFryer 300 350 350
c basket handle front as=basket
c temp_dial dial top
c timer_dial dial top
c light light front
s off dark | The air fryer is off with the basket in.
s basket_out dark | The basket is pulled out. | basket=1
s hot_set dark | The temperature dial points at the highest setting. | temp_dial=5
s frying | The fan whirs and the light is on. | timer_dial=3 light=amber fx=motion:0.3
s paused dark | The basket is out; the fan waits. | timer_dial=3 basket=1
s done dark | A bell rang; the food is done. | light=green fx=steam:0.15
s smoke error | Thick smoke pours from the vents. | temp_dial=5 timer_dial=6 light=red fx=smoke
t off basket pull 4 > basket_out | The basket slides out.
t basket_out basket push 4 > off | The basket slides back in.
t off timer_dial rotate 0,3 > frying | The timer ticks and the fan starts.
t off temp_dial rotate 0,5 > hot_set | The temperature dial turns all the way.
t hot_set temp_dial rotate 1,5 > off | The temperature dial turns back.
t hot_set timer_dial rotate 0,6 > smoke | The fryer runs at full heat for far too long.
t smoke ^ > off | The fryer cuts out.
t frying basket pull 4 > paused | The basket slides out and the fan stops.
t paused basket push 4 > frying | The basket slides in and the fan restarts.
t frying ~ > done | A bell rings.

@Flashlight 50 50 220
c tail_button button back
c head dial front
c? battery_cap dial left rest=3
s off dark | The flashlight is off.
s on | A bright beam shines from the head. | tail_button=down fx=beam:0.5
s strobe | The beam flashes rapidly. | tail_button=down fx=beam:0.25
s focused | The beam is a tight spot. | tail_button=down head=1 fx=beam:1
s cap_open dark | The tail cap is unscrewed. | battery_cap=0
t off tail_button press 0 > on | Click; a bright beam comes on.
t on tail_button press 0 > off | Click; the beam goes out.
t on tail_button press 2 > strobe | The beam starts flashing.
t strobe tail_button press 0 > off | The flashing stops and the light goes out.
t on head rotate 0,1 > focused | The beam narrows.
t focused head rotate 1,1 > on | The beam widens again.
t off battery_cap rotate 1,3 > cap_open | The cap unscrews.
t cap_open battery_cap rotate 0,3 > off | The cap screws back tight.

@FilmCamera 140 90 60
c advance_lever lever top
c shutter_button button top
c rewind_crank dial top
c back_latch switch left
c back_door door back
s idle | The camera is ready; the shutter is not cocked.
s cocked | The shutter is cocked. | advance_lever=1
s shot | A frame has been exposed; the counter moved on. | shutter_button=down
s rewound | The film has been wound back into its canister. | rewind_crank=5
s back_open | The back door is open. | back_latch=1 back_door=1
s light_leak error | Light floods over the loaded film. | back_latch=1 back_door=1 fx=glow:1
t idle advance_lever pull 3 > cocked | The lever swings and the film advances.
t cocked shutter_button press 0 > shot | Click! The shutter fires.
t shot advance_lever pull 3 > cocked | The lever swings and the film advances.
t shot rewind_crank rotate 0,5 > rewound | The crank turns and the film winds back.
t rewound back_latch pull 0 > back_open | The back door springs open.
t shot back_latch pull 0 > light_leak | The back door springs open with film inside.
t light_leak ^ > back_open | The film is fogged.
t back_open back_door push 4 > idle | The back door snaps shut.

@Razor 60 160 40
c power_button button front
c trimmer_slider switch back as=slider
c? head handle top
c light light front
s off dark | The razor is off.
s on | The razor buzzes. | light=green fx=motion:0.3
s trimmer_up dark | A trimmer blade stands up at the back. | trimmer_slider=1
s trimming | The trimmer buzzes. | trimmer_slider=1 light=green fx=motion:0.3
s locked dark | A lock symbol glows; the razor is travel-locked. | light=amber
s cut error | The blades nick your fingers. | light=red fx=motion:1
t off power_button press 0 > on | The razor starts buzzing.
t on power_button press 0 > off | The buzzing stops.
t off trimmer_slider push 0 > trimmer_up | A trimmer blade pops up.
t trimmer_up trimmer_slider push 1 > off | The trimmer folds away.
t trimmer_up power_button press 0 > trimming | The trimmer starts buzzing.
t trimming power_button press 0 > trimmer_up | The buzzing stops.
t off power_button press 1 > locked | A lock symbol lights up.
t locked power_button press 1 > off | The lock symbol goes out.
t on head grasp - > cut | You grab the running shaving head.
t cut ^ > off | The razor stops.

@DigitalCamera 120 70 50
c power_button button top
c shutter_button button top
c mode_dial dial top
c zoom_lever switch top
c playback_button button back
c display display back
s off dark | The camera is off; the lens is retracted.
s photo | The screen shows a live picture. | display=PHOTO
s zoomed | The live picture is zoomed in. | display=PHOTO_3x
s captured | The screen shows the photo just taken. | display=IMG_0001
s video | A red dot icon is on the live picture. | display=VIDEO mode_dial=1
s recording | A red timer counts up. | display=red@REC_0:05 mode_dial=1
s playback | The screen shows the last photo. | display=PLAY_1/1
t off power_button press 0 > photo | The lens extends and the screen turns on.
t photo power_button press 0 > off | The lens retracts and the screen goes dark.
t photo zoom_lever push 3 > zoomed | The lens zooms in.
t zoomed zoom_lever push 2 > photo | The lens zooms out.
t photo shutter_button press 0 > captured | Click! A photo is taken.
t zoomed shutter_button press 0 > captured | Click! A zoomed photo is taken.
t captured ~ > photo | The preview disappears.
t photo mode_dial rotate 0,1 > video | The dial clicks to the video mode.
t video mode_dial rotate 1,1 > photo | The dial clicks back to photo mode.
t video shutter_button press 0 > recording | Recording starts.
t recording shutter_button press 0 > video | Recording stops.
t photo playback_button press 0 > playback | The last photo appears.
t playback playback_button press 0 > photo | The live picture returns.

@HairDryer 250 280 90
c power_switch switch left as=slider detents=3
c cool_button button left
c filter lid back
s off | The hair dryer is off.
s low | Warm air blows gently. | power_switch=1 fx=motion:0.3
s high | Hot air blows strongly. | power_switch=2 fx=motion:1
s cool | Cool air blows. | power_switch=2 cool_button=down fx=motion:0.6
s filter_off | The rear filter is removed. | filter=1
s overheat error | The dryer smells hot and cuts out. | filter=1 power_switch=1 fx=smoke
t off power_switch push 0 > low | The dryer starts blowing gently.
t low power_switch push 0 > high | The airflow gets strong and hot.
t high power_switch push 1 > low | The airflow calms.
t low power_switch push 1 > off | The dryer stops.
t high cool_button press 0 > cool | The air turns cool.
t cool cool_button press 0 > high | The air turns hot again.
t off filter pull 4 > filter_off | The rear filter comes off.
t filter_off filter push 4 > off | The filter clicks back on.
t filter_off power_switch push 0 > overheat | The dryer runs with its rear open.
t overheat ^ > filter_off | The thermal fuse switches it off.

@Humidifier 240 320 240
c power_button button front
c mist_dial dial front
c tank handle top
c light light front
s off dark | The humidifier is off.
s low_mist | A thin mist rises. | light=blue fx=mist:0.3
s high_mist | A thick mist rises. | mist_dial=2 light=blue fx=mist:1
s empty | A red light shows that the tank is empty. | mist_dial=2 light=red
s tank_removed dark | The water tank is lifted out. | tank=1
t off power_button press 0 > low_mist | A thin mist starts to rise.
t low_mist power_button press 0 > off | The mist stops.
t low_mist mist_dial rotate 0,2 > high_mist | The mist thickens.
t high_mist mist_dial rotate 1,2 > low_mist | The mist thins out.
t high_mist ~ > empty | After a while the mist stops and a red light comes on.
t empty tank grasp - > tank_removed | You lift the tank out.
t off tank grasp - > tank_removed | You lift the tank out.
t tank_removed tank push 1 > off | You set the refilled tank back in.

@Landline 220 100 200
c handset handle top
c key_1 button top
c key_2 button top
c call_button button top
c ringer_switch switch left as=slider rest=1
c display display top
s idle | The phone is quiet. | display=12:00
s off_hook | A dial tone sounds from the handset. | handset=1 display=LINE
s dialing | The display shows 1. | handset=1 display=1
s dialed | The display shows 12. | handset=1 display=12
s calling | A ringing tone sounds. | handset=1 display=CALL_12
s connected | A voice answers: Hello? | handset=1 display=00:01
s silent | The ringer icon shows a crossed-out bell. | ringer_switch=0 display=12:00_MUTE
t idle handset grasp - > off_hook | You lift the handset.
t off_hook handset push 1 > idle | You put the handset down.
t off_hook key_1 press 0 > dialing | Beep.
t dialing key_2 press 0 > dialed | Beep.
t dialing handset push 1 > idle | You put the handset down.
t dialed call_button press 0 > calling | The line connects and rings.
t dialed handset push 1 > idle | You put the handset down.
t calling ~ > connected | Someone picks up.
t calling handset push 1 > idle | You hang up.
t connected handset push 1 > idle | You hang up.
t idle ringer_switch push 2 > silent | The switch slides left.
t silent ringer_switch push 3 > idle | The switch slides right.

@PowerBank 80 150 25
c button button right
c cable handle top
c light light front as=indicator
s sleep dark | The power bank is asleep.
s level | Four blue LEDs glow. | light=1
s torch | A small torch at the top shines. | fx=beam:0.3
s cable_out dark | A short cable is pulled out. | cable=1
s charging | The LEDs blink in sequence. | cable=1 light=0.5
t sleep button press 0 > level | Four LEDs light up.
t level ~ > sleep | The LEDs fade out.
t sleep button press 2 > torch | The torch turns on.
t torch button press 2 > sleep | The torch turns off.
t sleep cable pull 0 > cable_out | The built-in cable slides out.
t cable_out cable push 1 > sleep | The cable slides back in.
t cable_out button press 0 > charging | The LEDs start blinking.
t charging button press 1 > cable_out | The LEDs go out.

@CarKey 50 90 20
c lock_button button front
c unlock_button button front
c trunk_button button front
c blade_button button right
c blade handle top
s locked dark | The car is locked.
s unlocked | The car is unlocked; its lights flashed twice. | unlock_button=up+green
s trunk_open | The trunk is open. | trunk_button=up+amber
s blade_out dark | The metal key blade sticks out. | blade=1
s alarm error | The car alarm blares. | lock_button=up+red fx=motion:1
t locked unlock_button press 0 > unlocked | The car beeps twice and unlocks.
t unlocked lock_button press 0 > locked | The car beeps once and locks.
t unlocked trunk_button press 1 > trunk_open | The trunk lid rises.
t trunk_open lock_button press 0 > locked | The trunk closes itself and the car locks.
t locked blade_button press 0 > blade_out | The key blade flips out.
t blade_out blade push 4 > locked | You fold the blade back in.
t locked lock_button press 1 > alarm | The panic alarm goes off.
t alarm lock_button press 0 > locked | The alarm stops.

@Vacuum 300 1100 250
c power_switch switch back
c suction_slider switch front as=slider
c dust_bin handle front as=drawer
c light light front
s off dark | The vacuum is off.
s on | The vacuum hums. | power_switch=1 light=green fx=motion:0.3
s max | The vacuum roars at full suction. | power_switch=1 suction_slider=1 light=green fx=motion:1
s bin_out dark | The dust bin is removed. | dust_bin=1
s clogged error | The motor whines and a warning light flashes. | power_switch=1 suction_slider=1 light=red
t off power_switch push 0 > on | The motor starts.
t on power_switch push 1 > off | The motor stops.
t max power_switch push 1 > off | The motor stops.
t on suction_slider push 3 > max | The roar gets louder.
t max suction_slider push 2 > on | The roar calms.
t max ~ > clogged | After a long time the filter clogs.
t clogged ^ > off | The thermal cut-out stops the motor.
t off dust_bin pull 4 > bin_out | The dust bin comes out.
t bin_out dust_bin push 4 > off | The dust bin clicks back in.

@AirPurifier 300 550 300 dash
c power_button button panel
c fan_button button panel
c timer_button button panel
c display display panel
c filter_cover door back as=cover
s off dark | The purifier is off.
s auto | The purifier runs quietly in auto mode. | display=AUTO
s sleep | The purifier runs very quietly with dimmed lights. | display=dim@SLEEP
s turbo | The purifier runs loudly. | display=TURBO fx=motion:0.6
s turbo_timer | The purifier runs loudly with a timer shown. | display=TURBO_2h fx=motion:0.6
s cover_open dark | The rear cover is open, showing the filter. | filter_cover=1
s interlock error | The purifier stops abruptly. | filter_cover=1 display=red@E1
t off power_button press 0 > auto | The purifier starts.
t auto power_button press 0 > off | The purifier stops.
t sleep power_button press 0 > off | The purifier stops.
t turbo power_button press 0 > off | The purifier stops.
t auto fan_button press 0 > sleep | The fan slows down.
t sleep fan_button press 0 > turbo | The fan speeds up a lot.
t turbo fan_button press 0 > auto | The fan settles.
t turbo timer_button press 0 > turbo_timer | A timer appears on the display.
t turbo_timer ~ > off | The timer runs out and the purifier stops.
t off filter_cover pull 4 > cover_open | The rear cover comes off.
t cover_open filter_cover push 4 > off | The cover snaps on.
t auto filter_cover pull 4 > interlock | You open the cover while it runs.
t interlock ^ > cover_open | The safety interlock cuts the power.

@RiceCooker 300 260 300 dash
c lid_button button front
c lid lid top
c menu_button button panel
c start_button button panel
c cancel_button button panel
c display display panel
s idle | The rice cooker waits with its lid closed. | display=WHITE
s lid_open dark | The lid is open. | lid=1
s menu_brown | The display shows the brown rice program. | display=BROWN
s cooking | Steam rises and the display counts down. | display=0:45 fx=steam:0.5
s keep_warm | The display shows the keep-warm sign. | display=WARM fx=steam:0.15
s boil_over error | Starchy water bubbles out of the open cooker. | lid=1 display=red@Err fx=water
t idle lid_button press 0 > lid_open | The lid springs up.
t lid_open lid push 1 > idle | The lid clicks shut.
t idle menu_button press 0 > menu_brown | The program changes.
t menu_brown menu_button press 0 > idle | The program changes back.
t idle start_button press 0 > cooking | The cooker beeps and starts heating.
t menu_brown start_button press 0 > cooking | The cooker beeps and starts heating.
t cooking ~ > keep_warm | The cooker plays a tune; the rice is done.
t cooking cancel_button press 0 > idle | Cooking is cancelled.
t keep_warm cancel_button press 0 > idle | Keep-warm is switched off.
t cooking lid_button press 0 > boil_over | The lid springs up while it boils.
t boil_over ^ > lid_open | The cooker stops heating.

@ElectricToothbrush 30 220 30
c power_button button front
c brush_head handle top
c light light front
s off dark | The toothbrush is off.
s clean | The brush vibrates strongly. | light=blue fx=motion:1
s sensitive | The brush vibrates gently. | light=green fx=motion:0.3
s head_off dark | The brush head is taken off. | brush_head=1
s bare_spin error | The bare shaft rattles violently. | brush_head=1 light=red fx=motion:1
t off power_button press 0 > clean | The brush starts vibrating.
t clean power_button press 0 > sensitive | The vibration softens.
t sensitive power_button press 0 > off | The vibration stops.
t clean power_button press 1 > off | The vibration stops.
t clean ~ > off | After two minutes the brush stops by itself.
t off brush_head pull 0 > head_off | The brush head comes off.
t head_off brush_head push 1 > off | The brush head clicks on.
t head_off power_button press 0 > bare_spin | The motor runs without a head.
t bare_spin ^ > head_off | The brush stops.

@ThermometerGun 150 180 50
c trigger button front
c mode_button button back
c battery_door door bottom
c display display back
s off dark | The thermometer is off.
s reading | The screen shows 36.6 degrees. | display=36.6C
s surface_mode | The screen shows a surface icon. | display=SURF_--.-
s surface_reading | The screen shows 22.1 degrees with a surface icon. | display=SURF_22.1
s battery_open dark | The battery door is open. | battery_door=1
t off trigger press 0 > reading | Beep; a reading appears.
t reading ~ > off | The screen goes dark.
t reading mode_button press 0 > surface_mode | The mode changes.
t surface_mode mode_button press 0 > reading | The mode changes back.
t surface_mode trigger press 0 > surface_reading | Beep; a surface reading appears.
t surface_reading ~ > off | The screen goes dark.
t off battery_door pull 1 > battery_open | The battery door opens.
t battery_open battery_door push 0 > off | The battery door closes.
"""
